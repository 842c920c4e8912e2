#pragma once
// A kube::Client that passes every call to another one: the base of decorators that watch or
// change a few calls (count disruptions, record grace periods) and leave the rest alone.

#include <memory>
#include <string_view>

#include "kube/client.h"

namespace karpenter::kube {

class ForwardingClient : public Client {
 public:
  // `next` must outlive this client (it is only stored here, so it may be a member of a derived
  // class not yet constructed).
  explicit ForwardingClient(Client& next) : next_(next) {}

  Result<Object> Get(const Resource& resource, std::string_view namespace_,
                     std::string_view name) override {
    return next_.Get(resource, namespace_, name);
  }
  Result<ObjectList> List(const Resource& resource, const ListOptions& options) override {
    return next_.List(resource, options);
  }
  Result<std::unique_ptr<Watch>> StartWatch(const Resource& resource,
                                            const WatchOptions& options) override {
    return next_.StartWatch(resource, options);
  }
  Result<Object> Create(const Resource& resource, const Object& object,
                        const WriteOptions& options) override {
    return next_.Create(resource, object, options);
  }
  Result<Object> Update(const Resource& resource, const Object& object,
                        Subresource subresource) override {
    return next_.Update(resource, object, subresource);
  }
  Result<Object> Patch(const Resource& resource, std::string_view namespace_, std::string_view name,
                       PatchType type, const Object& patch, Subresource subresource) override {
    return next_.Patch(resource, namespace_, name, type, patch, subresource);
  }
  Status Delete(const Resource& resource, std::string_view namespace_, std::string_view name,
                const DeleteOptions& options) override {
    return next_.Delete(resource, namespace_, name, options);
  }
  Status Evict(std::string_view namespace_, std::string_view pod_name,
               const DeleteOptions& options) override {
    return next_.Evict(namespace_, pod_name, options);
  }

 protected:
  Client& next() { return next_; }

 private:
  Client& next_;
};

}  // namespace karpenter::kube

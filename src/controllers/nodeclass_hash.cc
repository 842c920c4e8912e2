#include "controllers/nodeclass_hash.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "api/ec2nodeclass.h"
#include "common/hash.h"

namespace karpenter::controllers {
namespace {

bool IsEmpty(const kube::Object& value) {
  return value.is_null() || (value.is_string() && value.get_ref<const std::string&>().empty()) ||
         ((value.is_array() || value.is_object()) && value.empty());
}

// What upstream's hash options make equal (upstream-reference §6): absent, null and empty values
// are the same, and a list is a set (its order does not count). False and 0 stay: an explicit
// `associatePublicIPAddress: false` launches differently from the subnet's default.
kube::Object Canonical(const kube::Object& value) {
  if (value.is_object()) {
    kube::Object out = kube::Object::object();
    for (const auto& [key, member] : value.items()) {
      kube::Object canonical = Canonical(member);
      if (!IsEmpty(canonical)) out[key] = std::move(canonical);
    }
    return out;
  }
  if (value.is_array()) {
    std::vector<std::string> items;
    for (const kube::Object& item : value) items.push_back(Canonical(item).dump());
    std::sort(items.begin(), items.end());
    items.erase(std::unique(items.begin(), items.end()), items.end());
    return items;  // the canonical items' texts: equal sets give equal arrays
  }
  return value;
}

}  // namespace

std::string NodeClassHash(const kube::Object& node_class) {
  const auto found = node_class.find("spec");
  const kube::Object spec =
      found != node_class.end() && found->is_object() ? *found : kube::Object::object();
  // The family in effect, whether written or implied by an alias: adding `amiFamily: AL2023`
  // beside an al2023 alias changes nothing.
  std::string family(kube::StringAt(spec, {"amiFamily"}));
  const kube::Object& terms = spec.value("amiSelectorTerms", kube::Object::array());
  for (size_t i = 0; family.empty() && terms.is_array() && i < terms.size(); ++i) {
    const std::string_view alias = kube::StringAt(terms[i], {"alias"});
    if (auto aliased = api::AmiFamilyOfAlias(alias.substr(0, alias.find('@')))) family = *aliased;
  }
  kube::Object hashed = spec;
  for (const char* field : {"subnetSelectorTerms", "securityGroupSelectorTerms", "amiSelectorTerms",
                            "capacityReservationSelectorTerms", "ipPrefixCount", "amiFamily"}) {
    hashed.erase(field);
  }
  const kube::Object content = {{"spec", Canonical(hashed)},
                                {"amiFamily", family.empty() ? "Custom" : family}};
  return std::to_string(Fnv1a64(content.dump()));
}

}  // namespace karpenter::controllers

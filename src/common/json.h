#pragma once
// The project's JSON value: nlohmann's, with its objects kept as a vector of members sorted by key
// instead of a std::map. Kubernetes objects live in memory as JSON (the in-memory API server and
// every informer hold them), and a tree node per member costs 80 bytes where a vector slot costs
// 48: a pod of a `simulate` snapshot shrinks by about a fifth. Sorted by key like std::map, so
// equality, dumps and iteration order are those of nlohmann::json.
//
// One difference to keep in mind: like nlohmann::ordered_json, adding a member may move the
// object's other members, so a reference to a member does not survive adding another member to
// the same object (take the reference again after the insertion).

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace karpenter {

// The map interface nlohmann::basic_json asks of its object type, over a sorted vector.
template <class Key, class T, class IgnoredLess = std::less<>,
          class Allocator = std::allocator<std::pair<const Key, T>>>
class SortedObjectMap : public std::vector<std::pair<const Key, T>, Allocator> {
 public:
  using key_type = Key;
  using mapped_type = T;
  using Container = std::vector<std::pair<const Key, T>, Allocator>;
  using iterator = typename Container::iterator;
  using const_iterator = typename Container::const_iterator;
  using size_type = typename Container::size_type;
  using value_type = typename Container::value_type;
  using key_compare = std::less<>;

  SortedObjectMap() noexcept(noexcept(Container())) = default;
  explicit SortedObjectMap(const Allocator& allocator) : Container(allocator) {}
  template <class It>
  SortedObjectMap(It first, It last, const Allocator& allocator = Allocator())
      : Container(allocator) {
    insert(first, last);
  }
  SortedObjectMap(std::initializer_list<value_type> init, const Allocator& allocator = Allocator())
      : Container(allocator) {
    insert(init.begin(), init.end());
  }

  template <class K, class... Args>
  std::pair<iterator, bool> emplace(K&& key, Args&&... args) {
    const const_iterator at = LowerBound(key);
    if (at != this->end() && !key_compare{}(key, at->first)) return {Mutable(at), false};
    return {InsertAt(Mutable(at), value_type(std::piecewise_construct,
                                             std::forward_as_tuple(std::forward<K>(key)),
                                             std::forward_as_tuple(std::forward<Args>(args)...))),
            true};
  }
  std::pair<iterator, bool> insert(value_type&& value) {
    return emplace(value.first, std::move(value.second));
  }
  std::pair<iterator, bool> insert(const value_type& value) {
    return emplace(value.first, value.second);
  }
  template <class It>
  void insert(It first, It last) {
    for (; first != last; ++first) emplace(first->first, first->second);
  }

  template <class K>
  T& operator[](K&& key) {
    return emplace(std::forward<K>(key)).first->second;
  }
  template <class K>
  const T& operator[](const K& key) const {
    return at(key);
  }
  template <class K>
  T& at(const K& key) {
    const iterator it = find(key);
    if (it == this->end()) throw std::out_of_range("key not found");
    return it->second;
  }
  template <class K>
  const T& at(const K& key) const {
    const const_iterator it = find(key);
    if (it == this->end()) throw std::out_of_range("key not found");
    return it->second;
  }

  template <class K>
  iterator find(const K& key) {
    return Mutable(std::as_const(*this).find(key));
  }
  template <class K>
  const_iterator find(const K& key) const {
    const const_iterator it = LowerBound(key);
    return it != this->end() && !key_compare{}(key, it->first) ? it : this->end();
  }
  template <class K>
  size_type count(const K& key) const {
    return find(key) != this->end() ? 1 : 0;
  }

  template <class K>
  requires(!std::is_convertible_v<K, const_iterator>) size_type erase(const K& key) {
    const iterator it = find(key);
    if (it == this->end()) return 0;
    erase(it);
    return 1;
  }
  iterator erase(iterator pos) { return erase(pos, std::next(pos)); }
  // Members cannot be move-assigned (their keys are const), so the ones after the range are
  // rebuilt in place, as nlohmann::ordered_map does.
  iterator erase(iterator first, iterator last) {
    if (first == last) return first;
    const auto removed = std::distance(first, last);
    const auto offset = std::distance(this->begin(), first);
    for (iterator it = first; std::next(it, removed) != this->end(); ++it) {
      std::destroy_at(std::addressof(*it));
      std::construct_at(std::addressof(*it), std::move(*std::next(it, removed)));
    }
    Container::resize(this->size() - static_cast<size_type>(removed));
    return this->begin() + offset;
  }

 private:
  template <class K>
  const_iterator LowerBound(const K& key) const {
    return std::lower_bound(
        this->begin(), this->end(), key,
        [](const value_type& member, const K& k) { return key_compare{}(member.first, k); });
  }
  iterator Mutable(const_iterator it) { return this->begin() + (it - this->cbegin()); }

  // Puts `value` before `at`, shifting the members from `at` on one place up.
  iterator InsertAt(iterator at, value_type&& value) {
    const auto offset = std::distance(this->begin(), at);
    if (at == this->end()) {
      Container::push_back(std::move(value));
      return std::prev(this->end());
    }
    value_type last(std::move(this->back()));
    Container::push_back(std::move(last));
    const iterator target = this->begin() + offset;
    for (iterator it = std::prev(this->end(), 2); it != target; --it) {
      std::destroy_at(std::addressof(*it));
      std::construct_at(std::addressof(*it), std::move(*std::prev(it)));
    }
    std::destroy_at(std::addressof(*target));
    std::construct_at(std::addressof(*target), std::move(value));
    return target;
  }
};

using Json = nlohmann::basic_json<SortedObjectMap>;

}  // namespace karpenter

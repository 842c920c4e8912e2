#include "scheduling/topology.h"

#include <algorithm>
#include <limits>

#include "api/labels.h"

namespace karpenter::scheduling {
namespace {

constexpr std::string_view kNamespaceNameLabel = "kubernetes.io/metadata.name";

void AppendSelector(std::string& out, const std::optional<api::LabelSelector>& selector) {
  if (!selector) {
    out += "<none>";
    return;
  }
  for (const auto& [k, v] : selector->match_labels) {
    out += k;
    out += '=';
    out += v;
    out += ',';
  }
  for (const auto& e : selector->match_expressions) {
    out += e.key + '#' + std::to_string(static_cast<int>(e.op)) + '[';
    for (const auto& v : e.values) out += v + ',';
    out += ']';
  }
}

// matchLabelKeys narrows the selector to pods sharing the owner's value of each key.
std::optional<api::LabelSelector> WithMatchLabelKeys(std::optional<api::LabelSelector> selector,
                                                     const std::vector<std::string>& keys,
                                                     const api::Pod& owner) {
  if (!selector) return selector;
  for (const auto& key : keys) {
    auto it = owner.metadata.labels.find(key);
    if (it == owner.metadata.labels.end()) continue;
    selector->match_expressions.push_back({key, api::SelectorOperator::kIn, {it->second}});
  }
  return selector;
}

}  // namespace

bool TopologyGroup::Selects(const api::Pod& pod) const {
  if (!selector) return false;
  if (!all_namespaces) {
    bool listed = std::find(namespaces.begin(), namespaces.end(), pod.metadata.namespace_) !=
                  namespaces.end();
    bool selected = namespace_selector &&
                    namespace_selector->Matches(
                        api::Labels{{std::string(kNamespaceNameLabel), pod.metadata.namespace_}});
    if (!listed && !selected) return false;
  }
  return selector->Matches(pod.metadata.labels);
}

int32_t TopologyGroup::CountOn(int candidate) const {
  return static_cast<size_t>(candidate) < candidate_counts.size() ? candidate_counts[candidate] : 0;
}

bool TopologyGroup::OwnerOn(int candidate) const {
  return static_cast<size_t>(candidate) < owner_candidates.size() && owner_candidates[candidate];
}

Topology::Topology(TopologyUniverse universe, CandidateRequirements candidate_requirements)
    : universe_(std::move(universe)), candidate_requirements_(std::move(candidate_requirements)) {}

void Topology::Count(TopologyGroup& group, const api::Pod& pod, int candidate) {
  if (!group.Selects(pod)) return;
  if (group.by_hostname) {
    if (group.candidate_counts.size() <= static_cast<size_t>(candidate)) {
      group.candidate_counts.resize(candidate + 1, 0);
    }
    ++group.candidate_counts[candidate];
    ++group.total;
    return;
  }
  const Requirement* r = candidate_requirements_(candidate).Get(group.key);
  if (r == nullptr || r->Len() != 1) return;  // the pod's domain is not decided
  r->ForEachValue([&](const std::string& domain) { ++group.counts[domain]; });
  ++group.total;
}

int Topology::Intern(TopologyGroup group, std::string signature) {
  auto [it, inserted] =
      by_signature_.emplace(std::move(signature), static_cast<int>(groups_.size()));
  if (!inserted) return it->second;
  group.by_hostname = group.key == api::kLabelHostname;
  if (placed_before_ != nullptr) {
    for (const PlacedPod& placed : *placed_before_) {
      const auto candidate = static_cast<size_t>(placed.candidate);
      if (candidate < left_out_->size() && (*left_out_)[candidate]) continue;
      Count(group, *placed.pod, placed.candidate);
    }
  }
  for (const auto& placement : placements_) Count(group, *placement.pod, placement.candidate);
  if (group.type == TopologyType::kAntiAffinity) anti_affinity_groups_.push_back(it->second);
  groups_.push_back(std::move(group));
  return it->second;
}

PodTopology Topology::ForPod(const PodConstraints& pod) {
  std::vector<int> out;
  const api::Pod& owner = pod.pod();
  for (const auto& spread : pod.spreads()) {
    TopologyGroup g;
    g.type = TopologyType::kSpread;
    g.key = spread.topology_key;
    g.selector = WithMatchLabelKeys(spread.label_selector, spread.match_label_keys, owner);
    g.namespaces = {owner.metadata.namespace_};
    g.max_skew = spread.max_skew;
    g.min_domains = spread.min_domains.value_or(0);
    g.honor_node_affinity = spread.node_affinity_policy == api::NodeInclusionPolicy::kHonor;
    g.honor_taints = spread.node_taints_policy == api::NodeInclusionPolicy::kHonor;
    std::string sig = "s|" + g.key + '|' + owner.metadata.namespace_ + '|';
    AppendSelector(sig, g.selector);
    sig += '|' + std::to_string(g.max_skew) + '|' + std::to_string(g.min_domains) + '|' +
           (g.honor_node_affinity ? "h" : "i") + (g.honor_taints ? "h" : "i");
    out.push_back(Intern(std::move(g), std::move(sig)));
  }
  auto add_terms = [&](const std::vector<api::PodAffinityTerm>& terms, TopologyType type) {
    for (const auto& term : terms) {
      TopologyGroup g;
      g.type = type;
      g.key = term.topology_key;
      g.selector = WithMatchLabelKeys(term.label_selector, term.match_label_keys, owner);
      g.namespace_selector = term.namespace_selector;
      g.all_namespaces = term.namespace_selector && term.namespace_selector->empty();
      g.namespaces = term.namespaces;
      if (g.namespaces.empty() && !term.namespace_selector) {
        g.namespaces = {owner.metadata.namespace_};
      }
      std::string sig = (type == TopologyType::kAffinity ? "a|" : "n|") + g.key + '|';
      for (const auto& ns : g.namespaces) sig += ns + ',';
      sig += '|';
      AppendSelector(sig, g.namespace_selector);
      sig += '|';
      AppendSelector(sig, g.selector);
      out.push_back(Intern(std::move(g), std::move(sig)));
    }
  };
  add_terms(pod.affinity(), TopologyType::kAffinity);
  const size_t first_anti_affinity = out.size();
  add_terms(pod.anti_affinity(), TopologyType::kAntiAffinity);
  PodTopology topology;
  topology.required_anti_affinity.assign(
      out.begin() + static_cast<std::ptrdiff_t>(first_anti_affinity),
      out.begin() +
          static_cast<std::ptrdiff_t>(first_anti_affinity + pod.required_anti_affinity()));
  topology.self.reserve(out.size());
  for (int index : out) topology.self.push_back(groups_[index].Selects(owner) ? 1 : 0);
  topology.groups = std::move(out);
  for (int index : anti_affinity_groups_) {
    if (groups_[index].Selects(owner)) topology.selected_by.push_back(index);
  }
  return topology;
}

void Topology::Domains(const std::string& key, const Requirements& where, const Requirements& own,
                       const Requirements& pins, bool fixed,
                       std::vector<std::string_view>& out) const {
  out.clear();
  if (const Requirement* pinned = pins.Get(key)) {
    pinned->ForEachValue([&](const std::string& v) { out.emplace_back(v); });
    return;
  }
  const Requirement* r = where.Get(key);
  const Requirement* wanted = own.Get(key);
  auto add = [&](const std::string& v) {
    if (wanted == nullptr || wanted->Has(v)) out.emplace_back(v);
  };
  if (r != nullptr && r->Finite()) {
    r->ForEachValue(add);
    return;
  }
  if (fixed) return;
  auto it = universe_.find(key);
  if (it == universe_.end()) return;
  for (const auto& d : it->second) {
    if (r == nullptr || r->Has(d.value)) add(d.value);
  }
}

const char* Topology::HostnameConflict(const PodTopology& topology, int candidate) const {
  for (size_t i = 0; i < topology.groups.size(); ++i) {
    const TopologyGroup& g = groups_[topology.groups[i]];
    if (!g.by_hostname) continue;
    const int32_t here = g.CountOn(candidate);
    const bool self = topology.self[i] != 0;
    switch (g.type) {
      case TopologyType::kSpread:
        // A new node is always possible, so the global minimum of a hostname spread is zero.
        if (here + (self ? 1 : 0) > g.max_skew) return "topology spread on the node's hostname";
        break;
      case TopologyType::kAffinity:
        if (here == 0 && !(self && g.total == 0)) {
          return "pod affinity: no matching pod on the node";
        }
        break;
      case TopologyType::kAntiAffinity:
        if (here > 0) return "pod anti-affinity: a matching pod runs on the node";
        break;
    }
  }
  for (int index : topology.selected_by) {
    const TopologyGroup& g = groups_[index];
    if (g.by_hostname && g.OwnerOn(candidate)) {
      return "anti-affinity of a running pod excludes it from the node";
    }
  }
  return nullptr;
}

Topology::Narrowed Topology::Narrow(const PodConstraints& pod, const PodTopology& topology,
                                    int candidate, const Requirements& where, bool fixed,
                                    bool explain) const {
  Narrowed result;  // the one object returned (no copy)
  Requirements& pins = result.pins;
  // Messages are built only when asked for: rejecting candidates is the hot path.
  auto fail = [&](auto&& describe) {
    if (explain) result.why = describe();
  };
  const Requirements& own = pod.requirements();
  if (const char* conflict = HostnameConflict(topology, candidate)) {
    fail([&] { return std::string(conflict); });
    return result;
  }
  auto count_of = [](const TopologyGroup& g, std::string_view d) {
    auto it = g.counts.find(d);
    return it == g.counts.end() ? 0 : it->second;
  };
  auto pin = [&](const std::string& key, std::string_view domain) {
    pins.Add(Requirement::In(key, {std::string(domain)}));
  };
  std::vector<std::string_view> domains;
  for (size_t i = 0; i < topology.groups.size(); ++i) {
    const TopologyGroup& g = groups_[topology.groups[i]];
    if (g.by_hostname) continue;
    Domains(g.key, where, own, pins, fixed, domains);
    const bool self = topology.self[i] != 0;
    switch (g.type) {
      case TopologyType::kSpread: {
        auto it = universe_.find(g.key);
        int eligible = 0;
        int32_t min = std::numeric_limits<int32_t>::max();
        const Requirement* wanted = own.Get(g.key);
        if (it != universe_.end()) {
          for (const auto& d : it->second) {
            if (g.honor_node_affinity && wanted != nullptr && !wanted->Has(d.value)) continue;
            if (g.honor_taints &&
                std::none_of(d.taints.begin(), d.taints.end(), [&](const auto* taints) {
                  return api::ToleratesAll(pod.pod().spec.tolerations, *taints);
                })) {
              continue;
            }
            ++eligible;
            min = std::min(min, count_of(g, d.value));
          }
        }
        if (eligible == 0 || eligible < g.min_domains) min = 0;
        std::optional<std::string_view> best;
        int32_t best_count = 0;
        for (std::string_view d : domains) {
          int32_t c = count_of(g, d);
          if (c + (self ? 1 : 0) - min > g.max_skew) continue;
          if (!best || c < best_count) {
            best = d;
            best_count = c;
          }
        }
        if (!best) {
          fail([&] {
            return "topology spread on " + g.key + " (maxSkew " + std::to_string(g.max_skew) +
                   ") cannot be satisfied";
          });
          return result;
        }
        pin(g.key, *best);
        break;
      }
      case TopologyType::kAffinity: {
        std::optional<std::string_view> best;
        int32_t best_count = 0;
        for (std::string_view d : domains) {
          int32_t c = count_of(g, d);
          if (c > best_count) {
            best = d;
            best_count = c;
          }
        }
        if (!best) {
          // The first pod of a self-selecting group starts the domain.
          if (!self || g.total > 0 || domains.empty()) {
            fail([&] {
              return "pod affinity on " + g.key + " has no matching pod in a compatible domain";
            });
            return result;
          }
          best = domains.front();
        }
        pin(g.key, *best);
        break;
      }
      case TopologyType::kAntiAffinity: {
        if (domains.empty()) break;  // the candidate has no such domain: nothing to conflict with
        auto free = std::find_if(domains.begin(), domains.end(),
                                 [&](std::string_view d) { return count_of(g, d) == 0; });
        if (free == domains.end()) {
          fail([&] {
            return "pod anti-affinity on " + g.key + " conflicts in every compatible domain";
          });
          return result;
        }
        pin(g.key, *free);
        break;
      }
    }
  }
  // Placed pods' anti-affinity keeps the pods they select away from their domains.
  for (int index : topology.selected_by) {
    const TopologyGroup& g = groups_[index];
    if (g.by_hostname || g.owner_domains.empty()) continue;
    Domains(g.key, where, own, pins, fixed, domains);
    if (domains.empty()) continue;
    std::vector<std::string> allowed;
    for (std::string_view d : domains) {
      if (!g.owner_domains.contains(d)) allowed.emplace_back(d);
    }
    if (allowed.empty()) {
      fail([&] {
        return "anti-affinity of a running pod excludes it from every compatible " + g.key;
      });
      return result;
    }
    if (allowed.size() < domains.size()) pins.Add(Requirement::In(g.key, std::move(allowed)));
  }
  result.admitted = true;
  return result;
}

void Topology::AddPlacedBefore(const std::vector<PlacedPod>& pods,
                               const std::vector<bool>& left_out) {
  placed_before_ = &pods;
  left_out_ = &left_out;
}

void Topology::Record(const api::Pod& pod, int candidate,
                      const std::vector<int>& required_anti_affinity) {
  for (auto& g : groups_) Count(g, pod, candidate);
  for (int index : required_anti_affinity) {
    TopologyGroup& g = groups_[index];
    if (g.by_hostname) {
      if (g.owner_candidates.size() <= static_cast<size_t>(candidate)) {
        g.owner_candidates.resize(candidate + 1, 0);
      }
      g.owner_candidates[candidate] = 1;
      continue;
    }
    const Requirement* r = candidate_requirements_(candidate).Get(g.key);
    if (r == nullptr) continue;
    r->ForEachValue([&](const std::string& d) { g.owner_domains.insert(d); });
  }
  placements_.push_back({&pod, candidate});
}

}  // namespace karpenter::scheduling

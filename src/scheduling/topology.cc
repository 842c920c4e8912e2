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
  for (const auto& [k, v] : selector->match_labels) out += k + '=' + v + ',';
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

Topology::Topology(std::map<std::string, std::vector<std::string>, std::less<>> universe,
                   CandidateRequirements candidate_requirements)
    : universe_(std::move(universe)), candidate_requirements_(std::move(candidate_requirements)) {}

int Topology::Intern(TopologyGroup group, std::string signature) {
  auto [it, inserted] = by_signature_.emplace(std::move(signature), static_cast<int>(groups_.size()));
  if (!inserted) return it->second;
  for (const auto& placement : placements_) {
    if (!group.Selects(*placement.pod)) continue;
    auto domain = DomainOf(candidate_requirements_(placement.candidate), group.key);
    if (!domain) continue;
    ++group.counts[*domain];
    ++group.total;
  }
  if (group.type == TopologyType::kAntiAffinity) anti_affinity_groups_.push_back(it->second);
  groups_.push_back(std::move(group));
  return it->second;
}

std::vector<int> Topology::GroupsFor(const PodConstraints& pod) {
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
    std::string sig = "s|" + g.key + '|' + owner.metadata.namespace_ + '|';
    AppendSelector(sig, g.selector);
    sig += '|' + std::to_string(g.max_skew) + '|' + std::to_string(g.min_domains) + '|' +
           (g.honor_node_affinity ? "h" : "i");
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
  add_terms(pod.anti_affinity(), TopologyType::kAntiAffinity);
  return out;
}

std::optional<std::string> Topology::DomainOf(const Requirements& where, const std::string& key) {
  const Requirement* r = where.Get(key);
  if (r == nullptr || r->Len() != 1) return std::nullopt;
  return r->Values().front();
}

std::vector<std::string> Topology::Domains(std::string_view key, const Requirements& where,
                                           bool fixed) const {
  const Requirement* r = where.Get(key);
  if (r != nullptr && r->Len() != std::numeric_limits<size_t>::max()) return r->Values();
  if (fixed) return {};
  std::vector<std::string> out;
  auto it = universe_.find(key);
  if (it == universe_.end()) return out;
  for (const auto& d : it->second) {
    if (r == nullptr || r->Has(d)) out.push_back(d);
  }
  return out;
}

Status Topology::Narrow(const PodConstraints& pod, const std::vector<int>& groups,
                        Requirements& where, bool fixed) const {
  const api::Pod& owner = pod.pod();
  auto count_of = [](const TopologyGroup& g, const std::string& d) {
    auto it = g.counts.find(d);
    return it == g.counts.end() ? 0 : it->second;
  };
  auto pin = [&](const std::string& key, std::string domain) {
    where.Add(Requirement::In(key, {std::move(domain)}));
  };
  for (int index : groups) {
    const TopologyGroup& g = groups_[index];
    std::vector<std::string> domains = Domains(g.key, where, fixed);
    const bool self = g.Selects(owner);
    switch (g.type) {
      case TopologyType::kSpread: {
        int32_t min = 0;
        if (g.key != api::kLabelHostname) {
          auto it = universe_.find(g.key);
          int eligible = 0;
          min = std::numeric_limits<int32_t>::max();
          const Requirement* own = pod.requirements().Get(g.key);
          if (it != universe_.end()) {
            for (const auto& d : it->second) {
              if (g.honor_node_affinity && own != nullptr && !own->Has(d)) continue;
              ++eligible;
              min = std::min(min, count_of(g, d));
            }
          }
          if (eligible == 0 || eligible < g.min_domains) min = 0;
        }
        const std::string* best = nullptr;
        int32_t best_count = 0;
        for (const auto& d : domains) {
          int32_t c = count_of(g, d);
          if (c + (self ? 1 : 0) - min > g.max_skew) continue;
          if (best == nullptr || c < best_count) {
            best = &d;
            best_count = c;
          }
        }
        if (best == nullptr) {
          return Error{"topology spread on " + g.key + " (maxSkew " + std::to_string(g.max_skew) +
                       ") cannot be satisfied"};
        }
        pin(g.key, *best);
        break;
      }
      case TopologyType::kAffinity: {
        const std::string* best = nullptr;
        int32_t best_count = 0;
        for (const auto& d : domains) {
          int32_t c = count_of(g, d);
          if (c > best_count) {
            best = &d;
            best_count = c;
          }
        }
        if (best == nullptr) {
          // The first pod of a self-selecting group starts the domain.
          if (!self || g.total > 0 || domains.empty()) {
            return Error{"pod affinity on " + g.key + " has no matching pod in a compatible domain"};
          }
          best = &domains.front();
        }
        pin(g.key, *best);
        break;
      }
      case TopologyType::kAntiAffinity: {
        if (domains.empty()) break;  // the candidate has no such domain: nothing to conflict with
        const std::string* free = nullptr;
        for (const auto& d : domains) {
          if (count_of(g, d) == 0) {
            free = &d;
            break;
          }
        }
        if (free == nullptr) {
          return Error{"pod anti-affinity on " + g.key + " conflicts in every compatible domain"};
        }
        pin(g.key, *free);
        break;
      }
    }
  }
  // Placed pods' anti-affinity keeps the pods they select away from their domains.
  for (int index : anti_affinity_groups_) {
    const TopologyGroup& g = groups_[index];
    if (g.owner_domains.empty() || !g.Selects(owner)) continue;
    std::vector<std::string> domains = Domains(g.key, where, fixed);
    if (domains.empty()) continue;
    std::vector<std::string> allowed;
    for (auto& d : domains) {
      if (!g.owner_domains.contains(d)) allowed.push_back(std::move(d));
    }
    if (allowed.empty()) {
      return Error{"anti-affinity of a running pod excludes it from every compatible " + g.key};
    }
    where.Add(Requirement::In(g.key, std::move(allowed)));
  }
  return {};
}

void Topology::Record(const api::Pod& pod, int candidate, const std::vector<int>& groups) {
  const Requirements& where = candidate_requirements_(candidate);
  for (auto& g : groups_) {
    if (!g.Selects(pod)) continue;
    auto domain = DomainOf(where, g.key);
    if (!domain) continue;
    ++g.counts[*domain];
    ++g.total;
  }
  for (int index : groups) {
    TopologyGroup& g = groups_[index];
    if (g.type != TopologyType::kAntiAffinity) continue;
    const Requirement* r = where.Get(g.key);
    if (r == nullptr) continue;
    for (auto& d : r->Values()) g.owner_domains.insert(std::move(d));
  }
  placements_.push_back({&pod, candidate});
}

bool Topology::Involves(const api::Pod& pod, const std::vector<int>& groups) const {
  if (!groups.empty()) return true;
  return std::any_of(anti_affinity_groups_.begin(), anti_affinity_groups_.end(), [&](int index) {
    return !groups_[index].owner_domains.empty() && groups_[index].Selects(pod);
  });
}

}  // namespace karpenter::scheduling

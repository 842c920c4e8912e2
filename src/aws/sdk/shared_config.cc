#include "aws/sdk/shared_config.h"

#include <filesystem>
#include <optional>
#include <system_error>
#include <utility>

#include "aws/sdk/credentials_provider.h"
#include "common/read_file.h"

namespace karpenter::aws {
namespace {

constexpr std::string_view kBlank = " \t";

std::string_view Trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(kBlank);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kBlank) - begin + 1);
}

// `text` up to a comment that follows whitespace: "x # note" -> "x". A '#' inside a word stays.
std::string_view WithoutComment(std::string_view text) {
  for (size_t i = 1; i < text.size(); ++i) {
    if ((text[i] == '#' || text[i] == ';') && (text[i - 1] == ' ' || text[i - 1] == '\t')) {
      return Trim(text.substr(0, i));
    }
  }
  return Trim(text);
}

// The profile a section header's name stands for; nullopt for a config-file section that is not
// a profile.
std::optional<std::string> SectionProfile(std::string_view name, SharedFileKind kind) {
  if (kind == SharedFileKind::kCredentials) return std::string(name);
  if (name == "default") return std::string(name);
  constexpr std::string_view kPrefix = "profile";
  if (name == kPrefix) return std::string();
  if (name.starts_with(kPrefix) && name.size() > kPrefix.size() &&
      kBlank.find(name[kPrefix.size()]) != std::string_view::npos) {
    return std::string(Trim(name.substr(kPrefix.size())));
  }
  return std::nullopt;
}

std::string DefaultPath(const Environment& environment, std::string_view variable,
                        std::string_view file) {
  if (const std::string_view path = environment.Get(variable); !path.empty()) {
    return std::string(path);
  }
  const std::string_view home = environment.Get("HOME");
  return home.empty() ? std::string() : std::string(home) + "/.aws/" + std::string(file);
}

// The file's profiles; none when `path` is empty or names no file.
Result<Profiles> LoadFile(const std::string& path, SharedFileKind kind) {
  std::error_code ignored;
  if (path.empty() || !std::filesystem::exists(path, ignored)) return Profiles();
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  return ParseSharedFile(text, path, kind);
}

struct BothFiles {
  Profiles config;
  Profiles credentials;
};

Result<BothFiles> LoadBoth(const Environment& environment) {
  ASSIGN_OR_RETURN(Profiles config,
                   LoadFile(SharedConfigPath(environment), SharedFileKind::kConfig));
  ASSIGN_OR_RETURN(Profiles credentials,
                   LoadFile(SharedCredentialsPath(environment), SharedFileKind::kCredentials));
  return BothFiles{std::move(config), std::move(credentials)};
}

}  // namespace

Result<Profiles> ParseSharedFile(std::string_view text, std::string_view file,
                                 SharedFileKind kind) {
  Profiles profiles;
  ProfileSettings* section = nullptr;  // null inside a section that is not a profile
  bool in_section = false;
  std::string* last_value = nullptr;  // what an indented line continues
  size_t line_number = 0;
  const auto error = [&](std::string_view why) {
    return Error{std::string(file) + ":" + std::to_string(line_number) + ": " + std::string(why)};
  };
  while (!text.empty()) {
    ++line_number;
    const size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    if (line.ends_with('\r')) line.remove_suffix(1);
    const std::string_view trimmed = Trim(line);
    if (trimmed.empty() || trimmed.front() == '#' || trimmed.front() == ';') continue;

    if (kBlank.find(line.front()) != std::string_view::npos) {
      if (!in_section) return error("an indented line outside a section");
      if (last_value == nullptr) {
        if (section == nullptr) continue;  // inside a skipped section
        return error("an indented line that continues no property");
      }
      if (!last_value->empty()) *last_value += '\n';
      *last_value += WithoutComment(trimmed);
      continue;
    }
    if (trimmed.front() == '[') {
      const size_t close = trimmed.find(']');
      if (close == std::string_view::npos) return error("a section header without ']'");
      if (const std::string_view after = Trim(trimmed.substr(close + 1));
          !after.empty() && after.front() != '#' && after.front() != ';') {
        return error("text after a section header");
      }
      const std::string_view name = Trim(trimmed.substr(1, close - 1));
      if (name.empty()) return error("a section without a name");
      const std::optional<std::string> profile = SectionProfile(name, kind);
      if (profile.has_value() && profile->empty()) return error("a profile without a name");
      section = profile.has_value() ? &profiles[*profile] : nullptr;
      in_section = true;
      last_value = nullptr;
      continue;
    }
    const size_t equals = trimmed.find('=');
    if (equals == std::string_view::npos) return error("expected \"[section]\" or \"key = value\"");
    const std::string_view key = Trim(trimmed.substr(0, equals));
    if (key.empty()) return error("a property without a name");
    if (!in_section) return error("a property before the first section");
    if (section == nullptr) {
      last_value = nullptr;
      continue;
    }
    std::string& value = (*section)[std::string(key)];
    value = std::string(WithoutComment(trimmed.substr(equals + 1)));
    last_value = &value;
  }
  return profiles;
}

std::string SharedCredentialsPath(const Environment& environment) {
  return DefaultPath(environment, "AWS_SHARED_CREDENTIALS_FILE", "credentials");
}

std::string SharedConfigPath(const Environment& environment) {
  return DefaultPath(environment, "AWS_CONFIG_FILE", "config");
}

std::string ProfileName(const Environment& environment) {
  const std::string_view name = environment.Get("AWS_PROFILE");
  return name.empty() ? "default" : std::string(name);
}

std::string_view Profile::Get(std::string_view key) const {
  const auto found = settings.find(key);
  if (found == settings.end()) return {};
  return found->second;
}

Result<Profile> LoadProfile(const Environment& environment) {
  ASSIGN_OR_RETURN(BothFiles files, LoadBoth(environment));
  Profile profile{ProfileName(environment), {}};
  const auto config = files.config.find(profile.name);
  const auto credentials = files.credentials.find(profile.name);
  if (config == files.config.end() && credentials == files.credentials.end()) {
    std::string where;
    for (const std::string& path :
         {SharedCredentialsPath(environment), SharedConfigPath(environment)}) {
      if (!path.empty()) where += (where.empty() ? "" : " or ") + path;
    }
    if (where.empty()) return Error{"HOME is not set", 0, std::string(kNotConfigured)};
    return Error{"no profile \"" + profile.name + "\" in " + where, 0, std::string(kNotConfigured)};
  }
  if (config != files.config.end()) profile.settings = std::move(config->second);
  if (credentials != files.credentials.end()) {
    for (auto& [key, value] : credentials->second) profile.settings[key] = std::move(value);
  }
  return profile;
}

Result<std::string> ProfileRegion(const Environment& environment) {
  Result<Profile> profile = LoadProfile(environment);
  if (!profile.ok()) {
    if (profile.error().reason == kNotConfigured) return std::string();
    return profile.error();
  }
  return std::string(profile->Get("region"));
}

}  // namespace karpenter::aws

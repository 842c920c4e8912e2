#pragma once
// The shared AWS files, ~/.aws/credentials and ~/.aws/config: INI text with one section per
// profile. The credentials file names sections "[name]"; the config file "[profile name]", except
// "[default]". A profile's settings are both files' keys merged, the credentials file's winning.

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "aws/sdk/environment.h"
#include "common/result.h"

namespace karpenter::aws {

// A profile's keys and values as written ("aws_access_key_id", "region", "role_arn", …).
using ProfileSettings = std::map<std::string, std::string, std::less<>>;
// Profiles by name.
using Profiles = std::map<std::string, ProfileSettings, std::less<>>;

enum class SharedFileKind { kCredentials, kConfig };

// Parses one file's text; `file` names it in errors ("<file>:<line>: …"), which never quote the
// line: it may hold a secret. Config-file sections that are not profiles ("[sso-session x]",
// "[services x]") are skipped. An indented line continues the property above it (a sub-property).
Result<Profiles> ParseSharedFile(std::string_view text, std::string_view file, SharedFileKind kind);

// Where the files are: AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE, else under $HOME/.aws;
// empty when neither the variable nor HOME is set.
std::string SharedCredentialsPath(const Environment& environment);
std::string SharedConfigPath(const Environment& environment);
// AWS_PROFILE, or "default".
std::string ProfileName(const Environment& environment);

struct Profile {
  std::string name;
  ProfileSettings settings;

  // The value of `key`, or empty.
  std::string_view Get(std::string_view key) const;
};

// The profile AWS_PROFILE selects, from both files. A missing file counts as empty; an error with
// reason kNotConfigured when neither file has the profile.
Result<Profile> LoadProfile(const Environment& environment);

// The selected profile's "region"; empty when the files or the profile or the key are missing.
// Errors only for a file that cannot be read or parsed.
Result<std::string> ProfileRegion(const Environment& environment);

}  // namespace karpenter::aws

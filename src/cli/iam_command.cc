#include "cli/iam_command.h"

#include "cli/command_line.h"

namespace karpenter::cli {

int RunIamPolicy(const aws::iam::PolicyInputs& inputs, std::ostream& out, std::ostream& err) {
  if (Status valid = aws::iam::Validate(inputs); !valid.ok()) {
    err << "karpenter iam policy: " << valid.error().message << "\n";
    return kExitUsage;
  }
  const nlohmann::ordered_json policy = aws::iam::ControllerPolicy(inputs);
  // IAM refuses a managed policy longer than this, counted without whitespace.
  if (const size_t size = policy.dump().size(); size > aws::iam::kManagedPolicyMaxCharacters) {
    err << "karpenter iam policy: the policy is " << size << " characters, over IAM's limit of "
        << aws::iam::kManagedPolicyMaxCharacters << "\n";
    return kExitFailure;
  }
  out << policy.dump(2) << "\n";
  return 0;
}

int RunIamMigratePolicy(const aws::iam::PolicyInputs& inputs, std::ostream& out,
                        std::ostream& err) {
  if (Status valid = aws::iam::Validate(inputs); !valid.ok()) {
    err << "karpenter iam migrate-policy: " << valid.error().message << "\n";
    return kExitUsage;
  }
  out << aws::iam::MigratePolicy(inputs).dump(2) << "\n";
  return 0;
}

int RunIamAwsAuth(const aws::iam::PolicyInputs& inputs, std::ostream& out, std::ostream& err) {
  if (Status valid = aws::iam::Validate(inputs, /*with_region=*/false); !valid.ok()) {
    err << "karpenter iam aws-auth: " << valid.error().message << "\n";
    return kExitUsage;
  }
  out << aws::iam::AwsAuthMapRoles(inputs);
  return 0;
}

int RunIamCloudFormation(const aws::iam::StackInputs& inputs, std::ostream& out,
                         std::ostream& err) {
  Result<nlohmann::ordered_json> stack = aws::iam::CloudFormationTemplate(inputs);
  if (!stack.ok()) {
    err << "karpenter iam cloudformation: " << stack.error().message << "\n";
    return kExitUsage;
  }
  out << stack->dump(2) << "\n";
  return 0;
}

}  // namespace karpenter::cli

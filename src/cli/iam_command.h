#pragma once
// `karpenter iam policy|aws-auth|cloudformation`: the IAM the controller needs, printed for a
// cluster.

#include <ostream>

#include "aws/iam/cloudformation.h"
#include "aws/iam/controller_policy.h"
#include "aws/iam/migrate_policy.h"

namespace karpenter::cli {

// The controller policy as JSON on `out`; bad inputs: a message on `err`, exit 2.
int RunIamPolicy(const aws::iam::PolicyInputs& inputs, std::ostream& out, std::ostream& err);
// The policy `karpenter migrate plan` needs, as JSON on `out`; bad inputs as above.
int RunIamMigratePolicy(const aws::iam::PolicyInputs& inputs, std::ostream& out, std::ostream& err);
// The aws-auth mapRoles entry of the node role on `out`; bad inputs as above.
int RunIamAwsAuth(const aws::iam::PolicyInputs& inputs, std::ostream& out, std::ostream& err);
// The CloudFormation template (JSON) on `out`; bad inputs as above.
int RunIamCloudFormation(const aws::iam::StackInputs& inputs, std::ostream& out, std::ostream& err);

}  // namespace karpenter::cli

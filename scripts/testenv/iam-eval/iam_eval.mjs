// The IAM policy evaluator behind the fault proxy (scripts/testenv/iam_authz.py): reads one JSON
// request per line on stdin, answers one JSON line per request on stdout, in order.
//
// In:  {"id": 7, "principal": "arn:aws:iam::123456789012:user/karpenter", "account": "123456789012",
//       "policies": [{"name": "controller", "policy": {...}}],
//       "checks": [{"action": "ec2:CreateTags", "resource": "arn:…", "context": {...}}, ...]}
// Out: {"id": 7, "decision": "Allowed" | "ExplicitlyDenied" | "ImplicitlyDenied" | "Error",
//       "failed": index of the first check not allowed (AWS stops there) or null,
//       "results": [{"decision", "allowedBy": [Sid...], "deniedBy": [Sid...], "error"?}, ...]}
//
// The evaluation itself is @cloud-copilot/iam-simulate's (pinned in package-lock.json; a test tool,
// installed by scripts/aws-test-tools, never part of what the project ships).
import { createInterface } from 'node:readline';
import { runSimulation, runUnsafeSimulation } from '@cloud-copilot/iam-simulate';

const write = (answer) => process.stdout.write(JSON.stringify(answer) + '\n');

// AWS's public parameters (/aws/service/…) have no account in their ARN
// (arn:aws:ssm:R::parameter/aws/service/…), which the service reference's pattern for a parameter
// does not admit; the validating entry point refuses such an ARN, so it is evaluated unvalidated.
const PUBLIC_PARAMETER = /^arn:[^:]+:ssm:[^:]+::parameter\/aws\//;

function statementIds(statements) {
  return (statements ?? []).map((s) => s.explain?.identifier ?? s.statement?.sid?.() ?? '?');
}

async function evaluate(request, check) {
  const simulation = {
    request: {
      principal: request.principal,
      action: check.action,
      resource: { resource: check.resource, accountId: request.account },
      contextVariables: check.context ?? {},
    },
    identityPolicies: request.policies,
    serviceControlPolicies: [],
    resourceControlPolicies: [],
  };
  if (PUBLIC_PARAMETER.test(check.resource)) {
    return { decision: runUnsafeSimulation(simulation, {}), allowedBy: [], deniedBy: [] };
  }
  const result = await runSimulation(simulation, { simulationMode: 'Strict' });
  if (result.resultType === 'error') {
    return { decision: 'Error', error: result.errors, allowedBy: [], deniedBy: [] };
  }
  const analysis = result.resultType === 'single' ? result.result.analysis : undefined;
  return {
    decision: result.overallResult,
    allowedBy: statementIds(analysis?.identityAnalysis?.allowStatements),
    deniedBy: statementIds(analysis?.identityAnalysis?.denyStatements),
  };
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  if (!line.trim()) continue;
  let request;
  try {
    request = JSON.parse(line);
    const results = [];
    for (const check of request.checks) {
      const result = await evaluate(request, check);
      results.push(result);
      if (result.decision !== 'Allowed') break;
    }
    const failed = results.findIndex((r) => r.decision !== 'Allowed');
    write({
      id: request.id,
      decision: failed < 0 ? 'Allowed' : results[failed].decision,
      failed: failed < 0 ? null : failed,
      results,
    });
  } catch (error) {
    write({ id: request?.id ?? null, decision: 'Error', failed: 0, error: String(error?.stack ?? error) });
  }
}

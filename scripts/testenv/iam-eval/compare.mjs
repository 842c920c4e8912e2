// Checks, statement by statement, that a policy grants nothing another one does not:
//   node compare.mjs NARROW.json WIDE.json ACCOUNT
// For every Allow statement of NARROW, every action and resource it names is requested with a
// context that meets the statement's conditions (each key given the value the condition asks for,
// a wildcard filled in), and WIDE must allow that request. Prints one line per request WIDE does
// not allow and exits 1 if there is any; 0 otherwise. Exit 2 on bad input. A resource the
// action never applies to (a snapshot for CreateFleet: the service reference lists no such
// resource type for it) cannot be requested, and is skipped.
//
// It asks the same evaluator as the fault proxy (iam_eval.mjs, @cloud-copilot/iam-simulate).
import { readFileSync } from 'node:fs';
import { runSimulation, runUnsafeSimulation } from '@cloud-copilot/iam-simulate';

const [narrowFile, wideFile, account] = process.argv.slice(2);
if (!narrowFile || !wideFile || !/^\d{12}$/.test(account ?? '')) {
  console.error('usage: node compare.mjs NARROW.json WIDE.json ACCOUNT');
  process.exit(2);
}
const read = (file) => {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    console.error(`${file}: ${error.message}`);
    process.exit(2);
  }
};
const narrow = read(narrowFile);
const wide = read(wideFile);
const list = (value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

// A concrete resource for a pattern: the account for `*` in the account field, an id for a
// trailing wildcard. `*` alone stays (the actions that take no resource).
function concrete(pattern) {
  if (pattern === '*') return '*';
  const parts = pattern.split(':');
  if (parts.length >= 6 && parts[4] === '*') parts[4] = account;
  return parts.join(':').replace(/\*/g, 'x0');
}

// A context meeting `condition`: each key the value its operator asks for.
function contextFor(condition) {
  const context = {};
  for (const [operator, keys] of Object.entries(condition ?? {})) {
    for (const [key, value] of Object.entries(keys)) {
      const values = list(value).map((v) => String(v).replace(/\*/g, 'x0'));
      if (operator.startsWith('ForAllValues:') || operator.startsWith('ForAnyValue:')) {
        context[key] = values;
      } else if (operator.startsWith('Null')) {
        if (String(value) === 'false') context[key] = 'x0';
      } else if (!operator.includes('Not')) {
        context[key] = values[0];
      }
    }
  }
  return context;
}

const PUBLIC_PARAMETER = /^arn:[^:]+:ssm:[^:]+::parameter\/aws\//;
async function allows(policy, action, resource, context) {
  const simulation = {
    request: { principal: `arn:aws:iam::${account}:role/compare`, action,
               resource: { resource, accountId: account }, contextVariables: context },
    identityPolicies: [{ name: 'wide', policy }],
    serviceControlPolicies: [],
    resourceControlPolicies: [],
  };
  if (PUBLIC_PARAMETER.test(resource)) return runUnsafeSimulation(simulation, {}) === 'Allowed';
  const result = await runSimulation(simulation, { simulationMode: 'Strict' });
  if (result.resultType === 'error' && result.errors.message === 'no.resource.types') return null;
  if (result.resultType === 'error') throw new Error(`${action} ${resource}: ${result.errors.message}`);
  return result.overallResult === 'Allowed';
}

let refused = 0;
let checked = 0;
let skipped = 0;
for (const statement of list(narrow.Statement)) {
  if (statement.Effect !== 'Allow') continue;
  const context = contextFor(statement.Condition);
  for (const action of list(statement.Action)) {
    for (const resource of list(statement.Resource).map(concrete)) {
      const allowed = await allows(wide, action, resource, context);
      if (allowed === null) {
        ++skipped;
        continue;
      }
      ++checked;
      if (!allowed) {
        ++refused;
        console.log(`${statement.Sid ?? '(no Sid)'}: ${action} on ${resource} ${JSON.stringify(context)}`);
      }
    }
  }
}
console.error(`${checked} requests of ${narrowFile} (${skipped} skipped); ${refused} not allowed by ` +
  wideFile);
process.exit(refused === 0 ? 0 : 1);

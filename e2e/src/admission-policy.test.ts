/**
 * ValidatingAdmissionPolicies with the real kubectl against a `kplane up` process: a policy
 * denies with its messageExpression, a Warn binding only warns, and a policy reads its limit
 * from a ConfigMap given as params.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kubectl, kubectlOk, useKplane } from './harness.js';

const RULES = `  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE", "UPDATE"]
      resources: ["deployments"]
`;

function binding(name: string, policy: string, actions: string, extra = ''): string {
  return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${policy}
  validationActions: [${actions}]
${extra}`;
}

describe('admission policies', () => {
  const suite = useKplane();
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  const apply = (yaml: string) => kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], yaml);

  it('a policy denies a Deployment with too many replicas with its messageExpression; with Warn it only warns', async () => {
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: max-replicas
spec:
  failurePolicy: Fail
${RULES}  validations:
  - expression: "object.spec.replicas <= 5"
    messageExpression: "'replicas must be no more than 5, got ' + string(object.spec.replicas)"
    reason: Forbidden
`);
    await apply(binding('max-replicas-binding', 'max-replicas', 'Deny'));
    const denied = await kubectl(suite.kp.kubeconfig, ['create', 'deployment', 'big', '--image=nginx', '--replicas=7']);
    assert.notEqual(denied.code, 0);
    assert.match(
      denied.stderr,
      /deployments\.apps "big" is forbidden: ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding' denied request: replicas must be no more than 5, got 7/,
    );
    await k('create', 'deployment', 'small', '--image=nginx', '--replicas=2');
    const rows = await k('get', 'validatingadmissionpolicies');
    assert.match(rows, /^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\n/);
    assert.match(rows, /^max-replicas\s+1\s+<unset>\s+/m);

    await apply(binding('max-replicas-binding', 'max-replicas', 'Warn'));
    const warned = await kubectl(suite.kp.kubeconfig, ['create', 'deployment', 'big', '--image=nginx', '--replicas=7']);
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stderr, /Warning: Validation failed for ValidatingAdmissionPolicy 'max-replicas' with binding 'max-replicas-binding': replicas must be no more than 5, got 7/);
    await k('delete', 'validatingadmissionpolicybinding', 'max-replicas-binding');
    await k('delete', 'deployment', 'big', 'small');
  });

  it('a policy with params reads its limit from a ConfigMap of the request\'s namespace', async () => {
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: replica-limit
spec:
  paramKind:
    apiVersion: v1
    kind: ConfigMap
${RULES}  validations:
  - expression: "object.spec.replicas <= int(params.data.maxReplicas)"
    messageExpression: "'at most ' + params.data.maxReplicas + ' replicas in ' + request.namespace"
`);
    await k('create', 'namespace', 'limited');
    await k('create', 'configmap', 'replica-limit', '-n', 'limited', '--from-literal=maxReplicas=3');
    await apply(binding('replica-limit-binding', 'replica-limit', 'Deny', `  paramRef:
    name: replica-limit
    parameterNotFoundAction: Allow
`));
    const denied = await kubectl(suite.kp.kubeconfig, ['create', 'deployment', 'web', '-n', 'limited', '--image=nginx', '--replicas=4']);
    assert.notEqual(denied.code, 0);
    assert.match(denied.stderr, /denied request: at most 3 replicas in limited/);
    await k('create', 'deployment', 'web', '-n', 'limited', '--image=nginx', '--replicas=3');
    // No ConfigMap in default: parameterNotFoundAction Allow admits.
    await k('create', 'deployment', 'web', '--image=nginx', '--replicas=9');
    const b = await k('get', 'validatingadmissionpolicybinding', 'replica-limit-binding', '--no-headers');
    assert.match(b, /^replica-limit-binding\s+replica-limit\s+\*\/replica-limit\s+/);
  });
});

/**
 * ValidatingAdmissionPolicies with the real kubectl against a `kplane up` process: a policy
 * denies with its messageExpression, a Warn binding only warns, a policy reads its limit from a
 * ConfigMap given as params, an Audit binding writes to the audit log, the authorizer variable
 * asks RBAC, and status.typeChecking reports a misspelt field.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { join } from 'node:path';
import { auditEvents, eventually, kubectl, kubectlOk, removeDir, startKplane, tempDir, useKplane, type KplaneProcess } from './harness.js';

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

describe('admission policies: Audit, auditAnnotations, the authorizer and type checking', () => {
  let dir: string;
  let auditPath: string;
  let kp: KplaneProcess;
  const k = (...args: string[]) => kubectlOk(kp.kubeconfig, args);
  const apply = (yaml: string) => kubectlOk(kp.kubeconfig, ['apply', '-f', '-'], yaml);
  before(async () => {
    dir = await tempDir();
    auditPath = join(dir, 'audit.log');
    kp = await startKplane(dir, ['--nodes', '0', '--audit-log', auditPath]);
  });
  after(async () => {
    await kp?.stop();
    await removeDir(dir);
  });

  const CONFIGMAP_RULES = `  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
`;

  it('an Audit binding admits and records the failure and the auditAnnotations in the audit log', async () => {
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: few-keys
spec:
${CONFIGMAP_RULES}  validations:
  - expression: "size(object.data) <= 1"
    messageExpression: "'at most 1 key, got ' + string(size(object.data))"
  auditAnnotations:
  - key: owner
    valueExpression: "has(object.data.owner) ? object.data.owner : null"
`);
    await apply(binding('few-keys-audit', 'few-keys', 'Audit'));
    const created = await kubectl(kp.kubeconfig, ['create', 'configmap', 'audited', '--from-literal=a=1', '--from-literal=owner=team-a']);
    assert.equal(created.code, 0, created.stderr);
    assert.doesNotMatch(created.stderr, /Warning/);
    const event = await eventually('the audit event of the create', async () =>
      (await auditEvents(auditPath)).find((e) => e.verb === 'create' && e.objectRef?.resource === 'configmaps' && e.stage === 'ResponseComplete' && e.annotations?.['few-keys/owner']),
    );
    assert.equal(event.annotations?.['few-keys/owner'], 'team-a');
    assert.deepEqual(JSON.parse(event.annotations?.['validation.policy.admission.k8s.io/validation_failure'] ?? 'null'), [
      { message: 'at most 1 key, got 2', policy: 'few-keys', binding: 'few-keys-audit', expressionIndex: 0, validationActions: ['Audit'] },
    ]);
    await k('delete', 'validatingadmissionpolicybinding', 'few-keys-audit');
  });

  it('a policy refuses users who may not delete ConfigMaps through the authorizer variable', async () => {
    await k('create', 'namespace', 'shared');
    await k('create', 'role', 'cm-creator', '-n', 'shared', '--verb=create,get', '--resource=configmaps');
    await k('create', 'rolebinding', 'alice-creates', '-n', 'shared', '--role=cm-creator', '--user=alice');
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: deleters-only
spec:
${CONFIGMAP_RULES}  validations:
  - expression: "authorizer.group('').resource('configmaps').namespace(request.namespace).check('delete').allowed()"
    message: only users who may delete ConfigMaps may create them
    reason: Forbidden
`);
    await apply(binding('deleters-only', 'deleters-only', 'Deny'));
    const denied = await kubectl(kp.kubeconfig, ['create', 'configmap', 'by-alice', '-n', 'shared', '--as=alice']);
    assert.notEqual(denied.code, 0);
    assert.match(
      denied.stderr,
      /configmaps "by-alice" is forbidden: ValidatingAdmissionPolicy 'deleters-only' with binding 'deleters-only' denied request: only users who may delete ConfigMaps may create them/,
    );
    // The admin may delete them.
    await k('create', 'configmap', 'by-admin', '-n', 'shared');
    await k('delete', 'validatingadmissionpolicybinding', 'deleters-only');
  });

  it('status.typeChecking warns of a field the matched kind does not have', async () => {
    await apply(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: typo
spec:
${RULES}  validations:
  - expression: "object.spec.replicass <= 5"
`);
    const warning = await eventually('the type checking warning', async () => (await k('get', 'validatingadmissionpolicy', 'typo', '-o', 'jsonpath={.status.typeChecking.expressionWarnings[0].warning}')) || undefined);
    assert.match(warning, /^apps\/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'/);
    assert.equal(await k('get', 'validatingadmissionpolicy', 'typo', '-o', 'jsonpath={.status.observedGeneration}'), '1');
  });
});

/**
 * MutatingAdmissionPolicies (admissionregistration.k8s.io/v1alpha1) with the real kubectl
 * against a `kplane up` process: an ApplyConfiguration policy adds a label to new ConfigMaps,
 * a JSONPatch policy sets a default, a failing mutation refuses with kube's message, and a
 * policy with a ConfigMap param merges a field into every container of a Deployment.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { kubectl, kubectlOk, useKplane } from './harness.js';

const CONFIGMAPS = `  matchConstraints:
    resourceRules:
    - apiGroups: [""]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["configmaps"]
`;

function binding(name: string, policy: string): string {
  return `apiVersion: admissionregistration.k8s.io/v1alpha1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: ${name}
spec:
  policyName: ${policy}
`;
}

describe('mutating admission policies', () => {
  const suite = useKplane();
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  const apply = (yaml: string) => kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], yaml);

  it('an ApplyConfiguration policy adds a label to new ConfigMaps; kubectl lists the policy', async () => {
    await apply(`apiVersion: admissionregistration.k8s.io/v1alpha1
kind: MutatingAdmissionPolicy
metadata:
  name: add-team-label
spec:
${CONFIGMAPS}  matchConditions:
  - name: not-labelled
    expression: "!has(object.metadata.labels) || !('team' in object.metadata.labels)"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{
          metadata: Object.metadata{
            labels: {"team": "platform"}
          }
        }
`);
    await apply(binding('add-team-label', 'add-team-label'));
    await k('create', 'configmap', 'settings', '--from-literal=a=b');
    assert.equal(await k('get', 'configmap', 'settings', '-o', 'jsonpath={.metadata.labels.team}'), 'platform');
    // A ConfigMap that names its team keeps it.
    await apply('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: own\n  labels:\n    team: data\n');
    assert.equal(await k('get', 'configmap', 'own', '-o', 'jsonpath={.metadata.labels.team}'), 'data');
    const rows = await k('get', 'mutatingadmissionpolicies');
    assert.match(rows, /^NAME\s+MUTATIONS\s+PARAMKIND\s+AGE\n/);
    assert.match(rows, /^add-team-label\s+1\s+<unset>\s+/m);
    assert.match(await k('get', 'mutatingadmissionpolicybindings'), /^add-team-label\s+add-team-label\s+<unset>\s+/m);
    await k('delete', 'mutatingadmissionpolicybinding', 'add-team-label');
    await k('create', 'configmap', 'after', '--from-literal=a=b');
    assert.equal(await k('get', 'configmap', 'after', '-o', 'jsonpath={.metadata.labels}'), '');
    await k('delete', 'configmap', 'settings', 'own', 'after');
  });

  it('a JSONPatch policy sets a default; a failing mutation refuses with kube\'s message', async () => {
    await apply(`apiVersion: admissionregistration.k8s.io/v1alpha1
kind: MutatingAdmissionPolicy
metadata:
  name: default-log-level
spec:
${CONFIGMAPS}  matchConditions:
  - name: no-level
    expression: "!has(object.data) || !('logLevel' in object.data)"
  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: >
        has(object.data)
          ? [JSONPatch{op: "add", path: "/data/logLevel", value: "info"}]
          : [JSONPatch{op: "add", path: "/data", value: {"logLevel": "info"}}]
`);
    await apply(binding('default-log-level', 'default-log-level'));
    await k('create', 'configmap', 'app', '--from-literal=port=80');
    assert.equal(await k('get', 'configmap', 'app', '-o', 'jsonpath={.data.logLevel}'), 'info');
    await k('create', 'configmap', 'empty');
    assert.equal(await k('get', 'configmap', 'empty', '-o', 'jsonpath={.data.logLevel}'), 'info');
    await k('create', 'configmap', 'loud', '--from-literal=logLevel=debug');
    assert.equal(await k('get', 'configmap', 'loud', '-o', 'jsonpath={.data.logLevel}'), 'debug');

    await apply(`apiVersion: admissionregistration.k8s.io/v1alpha1
kind: MutatingAdmissionPolicy
metadata:
  name: broken
spec:
${CONFIGMAPS}  mutations:
  - patchType: JSONPatch
    jsonPatch:
      expression: '[JSONPatch{op: "add", path: "/data/x", value: object.data.missing}]'
`);
    await apply(binding('broken', 'broken'));
    const refused = await kubectl(suite.kp.kubeconfig, ['create', 'configmap', 'nope', '--from-literal=a=b']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /policy 'broken' with binding 'broken' denied request: expression '.*' resulted in error: no such key: missing/);
    await k('patch', 'mutatingadmissionpolicy', 'broken', '--type=merge', '-p', '{"spec":{"failurePolicy":"Ignore"}}');
    await k('create', 'configmap', 'nope', '--from-literal=a=b');
    await k('delete', 'mutatingadmissionpolicybinding', 'broken', 'default-log-level');
    await k('delete', 'mutatingadmissionpolicy', 'broken', 'default-log-level', 'add-team-label');
  });

  it('a policy with a ConfigMap param sets every container\'s pull policy, merged by container name', async () => {
    await apply(`apiVersion: admissionregistration.k8s.io/v1alpha1
kind: MutatingAdmissionPolicy
metadata:
  name: pull-policy
spec:
  paramKind:
    apiVersion: v1
    kind: ConfigMap
  matchConstraints:
    resourceRules:
    - apiGroups: ["apps"]
      apiVersions: ["v1"]
      operations: ["CREATE"]
      resources: ["deployments"]
  variables:
  - name: policy
    expression: "params.data.pullPolicy"
  mutations:
  - patchType: ApplyConfiguration
    applyConfiguration:
      expression: >
        Object{
          spec: Object.spec{
            template: Object.spec.template{
              spec: Object.spec.template.spec{
                containers: object.spec.template.spec.containers.map(c,
                  Object.spec.template.spec.containers{name: c.name, imagePullPolicy: variables.policy})
              }
            }
          }
        }
`);
    await k('create', 'configmap', 'pull-settings', '-n', 'default', '--from-literal=pullPolicy=IfNotPresent');
    await apply(`apiVersion: admissionregistration.k8s.io/v1alpha1
kind: MutatingAdmissionPolicyBinding
metadata:
  name: pull-policy
spec:
  policyName: pull-policy
  paramRef:
    name: pull-settings
    namespace: default
    parameterNotFoundAction: Deny
`);
    assert.match(await k('get', 'mutatingadmissionpolicybindings', 'pull-policy'), /^pull-policy\s+pull-policy\s+default\/pull-settings\s+/m);
    await k('create', 'deployment', 'web', '--image=nginx:latest', '--image=redis:latest');
    const containers = JSON.parse(await k('get', 'deployment', 'web', '-o', 'jsonpath={.spec.template.spec.containers}')) as { name: string; image: string; imagePullPolicy: string }[];
    assert.deepEqual(
      containers.map((c) => [c.name, c.image, c.imagePullPolicy]),
      [
        ['nginx', 'nginx:latest', 'IfNotPresent'],
        ['redis', 'redis:latest', 'IfNotPresent'],
      ],
    );
    await k('delete', 'deployment', 'web');
    await k('delete', 'mutatingadmissionpolicybinding', 'pull-policy');
    await k('delete', 'mutatingadmissionpolicy', 'pull-policy');
  });
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually } from '@kplane/api/testing';
import { startTestServer } from '../../testing.js';

const AR = '/apis/admissionregistration.k8s.io/v1';

function policy(name: string, spec: object) {
  const matchConstraints = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments', 'replicasets'] }] };
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec: { matchConstraints, ...spec } };
}

test('status.typeChecking reports, per matched kind, fields that do not exist and operators on the wrong types; observedGeneration follows the spec', async () => {
  const s = await startTestServer();
  try {
    const created = await s.call(
      'POST',
      `${AR}/validatingadmissionpolicies`,
      policy('p', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        variables: [{ name: 'replicas', expression: 'object.spec.replicas' }],
        validations: [
          { expression: 'object.spec.replicass > 1' },
          { expression: "variables.replicas == 'three'", messageExpression: "'max ' + params.data.max" },
          { expression: "object.metadata.labels['a'] == 'b' && object.spec.template.spec.containers.all(c, c.image != '') && authorizer.group('').resource('pods').check('get').allowed()" },
          { expression: "has(object.spec.strategy) && object.spec.strategy.rollingUpdate.maxSurge == 1 && params.datas == 'x'" },
          { expression: "request.operation == 'CREATE' && request.userInfo.groups.exists(g, g == 'devs') && request.nmespace == ''" },
        ],
      }),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const status = await eventually('the status is written', async () => {
      const p = (await s.call('GET', `${AR}/validatingadmissionpolicies/p`)).body;
      return p.status?.observedGeneration === 1 ? p.status : undefined;
    });
    const warnings = status.typeChecking.expressionWarnings as { fieldRef: string; warning: string }[];
    assert.deepEqual(
      warnings.map((w) => w.fieldRef),
      ['spec.validations[0].expression', 'spec.validations[1].expression', 'spec.validations[3].expression', 'spec.validations[4].expression'],
    );
    assert.equal(
      warnings[0]!.warning,
      [
        "apps/v1, Kind=Deployment: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^\n",
        "apps/v1, Kind=ReplicaSet: ERROR: <input>:1:12: undefined field 'replicass'\n | object.spec.replicass > 1\n | ...........^\n",
      ].join('\n'),
    );
    assert.match(warnings[1]!.warning, /^apps\/v1, Kind=Deployment: ERROR: <input>:1:20: found no matching overload for '_==_' applied to '\(int, string\)'/);
    // A Deployment's strategy has rollingUpdate, a ReplicaSet's spec has no strategy; a ConfigMap has no `datas`.
    assert.match(warnings[2]!.warning, /Kind=Deployment: ERROR: <input>:1:\d+: undefined field 'datas'/);
    assert.match(warnings[2]!.warning, /Kind=ReplicaSet: ERROR: <input>:1:\d+: undefined field 'strategy'/);

    assert.match(warnings[3]!.warning, /Kind=Deployment: ERROR: <input>:1:91: undefined field 'nmespace'/);
    // Fixed: the next generation has no warnings.
    const p = (await s.call('GET', `${AR}/validatingadmissionpolicies/p`)).body;
    const fixed = { ...p, spec: { ...p.spec, validations: [{ expression: 'object.spec.replicas > 1' }] } };
    assert.equal((await s.call('PUT', `${AR}/validatingadmissionpolicies/p`, fixed)).status, 200);
    const next = await eventually('generation 2 is observed', async () => {
      const q = (await s.call('GET', `${AR}/validatingadmissionpolicies/p`)).body;
      return q.status?.observedGeneration === 2 ? q.status : undefined;
    });
    assert.deepEqual(next.typeChecking, {});
  } finally {
    await s.close();
  }
});

test('a policy whose rules name no kind without wildcards is not type-checked', async () => {
  const s = await startTestServer();
  try {
    const body = policy('wild', { validations: [{ expression: 'object.nothing > 1' }] });
    body.spec.matchConstraints.resourceRules[0]!.apiGroups = ['*'];
    assert.equal((await s.call('POST', `${AR}/validatingadmissionpolicies`, body)).status, 201);
    const status = await eventually('the status is written', async () => {
      const p = (await s.call('GET', `${AR}/validatingadmissionpolicies/wild`)).body;
      return p.status?.observedGeneration === 1 ? p.status : undefined;
    });
    assert.deepEqual(status.typeChecking, {});
  } finally {
    await s.close();
  }
});

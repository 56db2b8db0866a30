import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import { ApiError, type KubeObject } from '@kplane/api';
import { createCa, issueCertificate } from '../../auth/pki.js';
import type { AdmissionAttributes } from '../types.js';
import { mutatingAdmissionWebhook, validatingAdmissionWebhook, type Webhook, type WebhookSource } from './plugin.js';
import { ruleMatches } from './match.js';
import { postReview } from './call.js';
import { admissionAttributes, startTestServer } from '../../testing.js';
import { loadCel } from '../../crd/cel/load.js';

// Entry points load the CEL library before the synchronous code these tests call.
await loadCel();

type Review = { request: { uid: string; operation: string; object: KubeObject; name: string; namespace: string; kind: { kind: string } } };

describe('admission webhooks', () => {
  let server: Server;
  let port: number;
  let caBundle: string;
  let otherCa: string;
  const seen: Review[] = [];
  const paths: string[] = [];
  before(async () => {
    const ca = await createCa('webhook-ca');
    const serving = await issueCertificate(ca, { subject: 'CN=hook.default.svc', usage: 'server', dnsNames: ['hook.default.svc'], ipAddresses: ['127.0.0.1'] });
    caBundle = Buffer.from(ca.pem.cert).toString('base64');
    otherCa = Buffer.from((await createCa('other')).pem.cert).toString('base64');
    server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
      paths.push(req.url!.split('?')[0]!);
      if (req.url!.startsWith('/hang')) return; // never answers
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString()) as Review;
        seen.push(review);
        const uid = review.request.uid;
        const path = req.url!.split('?')[0];
        const response =
          path === '/deny'
            ? { uid, allowed: false, status: { message: 'no pods named bad' } }
            : path === '/label'
              ? { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify([{ op: 'add', path: '/metadata/labels', value: { hooked: 'yes' } }])).toString('base64'), warnings: ['labelled'], auditAnnotations: { why: 'policy' } }
              : path === '/wrong-uid'
                ? { uid: 'nope', allowed: true }
                : { uid, allowed: true };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
  });
  after(() => server.close());

  const rules = [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], scope: '*' }];
  const hook = (name: string, extra: Partial<Webhook> = {}): Webhook => ({
    name,
    rules,
    failurePolicy: 'Fail',
    sideEffects: 'None',
    timeoutSeconds: 10,
    clientConfig: { url: `https://127.0.0.1:${port}/allow`, caBundle },
    ...extra,
  });
  const source = (validating: Webhook[], mutating: Webhook[] = [], objects: KubeObject[] = []): WebhookSource => ({
    validating: () => (validating.length ? [{ metadata: { name: 'v' }, webhooks: validating }] : []),
    mutating: () => (mutating.length ? [{ metadata: { name: 'm' }, webhooks: mutating }] : []),
    namespace: async (name) => ({ metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } }),
    objects: { list: async (group, _v, resource) => objects.filter((o) => (o.apiVersion === 'v1' ? '' : o.apiVersion!.split('/')[0]) === group && `${o.kind!.toLowerCase()}s` === resource) },
  });
  const attrs = (name: string, namespace = 'default', warnings: string[] = []): AdmissionAttributes =>
    admissionAttributes({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace } }, { user: { username: 'alice', groups: ['devs'] }, warnings });

  it('refuses with the webhook\'s message as kube-apiserver words it, and sends an AdmissionReview v1', async () => {
    const step = validatingAdmissionWebhook(source([hook('deny.example.com', { clientConfig: { url: `https://127.0.0.1:${port}/deny`, caBundle } })]));
    await assert.rejects(step.validate(attrs('bad')), (e: ApiError) => {
      assert.equal(e.code, 403);
      assert.equal(e.reason, 'Forbidden');
      assert.equal(e.message, 'pods "bad" is forbidden: admission webhook "deny.example.com" denied the request: no pods named bad');
      return true;
    });
    const r = seen.at(-1)!.request;
    assert.deepEqual([r.operation, r.name, r.namespace, r.kind.kind, r.object.metadata?.name], ['CREATE', 'bad', 'default', 'Pod', 'bad']);
  });

  it('applies a JSONPatch and passes on warnings and audit annotations', async () => {
    const audit: Record<string, string> = {};
    const a = { ...attrs('p'), audit: (k: string, v: string) => (audit[k] = v) };
    await mutatingAdmissionWebhook(source([], [hook('label.example.com', { clientConfig: { url: `https://127.0.0.1:${port}/label`, caBundle } })])).admit(a);
    assert.deepEqual(a.object!.metadata!.labels, { hooked: 'yes' });
    assert.deepEqual(a.warnings, ['labelled']);
    assert.deepEqual(audit, {
      'label.example.com/why': 'policy',
      'mutation.webhook.admission.k8s.io/round_0_index_0': '{"configuration":"m","webhook":"label.example.com","mutated":true}',
    });
  });

  it('a create patched by a webhook is stored whole: uid, creationTimestamp and resourceVersion are kept', async () => {
    const s = await startTestServer({ admission: { webhooks: source([], [hook('label.example.com', { clientConfig: { url: `https://127.0.0.1:${port}/label`, caBundle } })]) } });
    try {
      const r = await s.call('POST', '/api/v1/namespaces/default/pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'patched' }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });
      assert.equal(r.status, 201, JSON.stringify(r.body));
      const m = r.body.metadata;
      assert.deepEqual(m.labels, { hooked: 'yes' });
      assert.ok(m.uid && m.creationTimestamp && m.resourceVersion, JSON.stringify(m));
      const stored = await s.call('GET', '/api/v1/namespaces/default/pods/patched');
      assert.equal(stored.body.metadata.uid, m.uid);
      assert.equal(stored.body.metadata.creationTimestamp, m.creationTimestamp);
    } finally {
      await s.close();
    }
  });

  it('fails closed with kube\'s message when the webhook cannot be reached, and Ignore lets the request through, recorded in the audit annotations', async () => {
    const down = { url: 'https://127.0.0.1:1/validate', caBundle };
    await assert.rejects(validatingAdmissionWebhook(source([hook('down.example.com', { clientConfig: down })])).validate(attrs('x')), (e: ApiError) => {
      assert.equal(e.code, 500);
      assert.equal(e.message, 'Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://127.0.0.1:1/validate?timeout=10s": dial tcp 127.0.0.1:1: connect: connection refused');
      return true;
    });
    const audit: Record<string, string> = {};
    await validatingAdmissionWebhook(source([hook('down.example.com', { clientConfig: down, failurePolicy: 'Ignore' })])).validate({ ...attrs('x'), audit: (k, v) => (audit[k] = v) });
    assert.deepEqual(audit, { 'failed-open.validating.webhook.admission.k8s.io/round_0_index_0': 'down.example.com' });
    const mutatingAudit: Record<string, string> = {};
    const ok = hook('ok.example.com', { clientConfig: { url: `https://127.0.0.1:${port}/allow`, caBundle } });
    await mutatingAdmissionWebhook(source([], [ok, hook('down.example.com', { clientConfig: down, failurePolicy: 'Ignore' })])).admit({ ...attrs('x'), audit: (k, v) => (mutatingAudit[k] = v) });
    assert.deepEqual(mutatingAudit, {
      'mutation.webhook.admission.k8s.io/round_0_index_0': '{"configuration":"m","webhook":"ok.example.com","mutated":false}',
      'failed-open.mutation.webhook.admission.k8s.io/round_0_index_1': 'down.example.com',
      'mutation.webhook.admission.k8s.io/round_0_index_1': '{"configuration":"m","webhook":"down.example.com","mutated":false}',
    });
  });

  it('verifies the server with the caBundle and checks the response uid', async () => {
    await assert.rejects(validatingAdmissionWebhook(source([hook('ca.example.com', { clientConfig: { url: `https://127.0.0.1:${port}/allow`, caBundle: otherCa } })])).validate(attrs('x')), /x509: certificate signed by unknown authority/);
    await assert.rejects(
      validatingAdmissionWebhook(source([hook('uid.example.com', { clientConfig: { url: `https://127.0.0.1:${port}/wrong-uid`, caBundle } })])).validate(attrs('x')),
      /failed calling webhook "uid.example.com": received invalid webhook response: expected response.uid=".*", got "nope"/,
    );
  });

  it('reaches a service through its EndpointSlices, checking the certificate against NAME.NAMESPACE.svc', async () => {
    const objects: KubeObject[] = [
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hook', namespace: 'default' }, spec: { ports: [{ name: 'https', port: 443 }] } },
      { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'hook-1', namespace: 'default', labels: { 'kubernetes.io/service-name': 'hook' } }, addressType: 'IPv4', ports: [{ name: 'https', port }], endpoints: [{ addresses: ['127.0.0.1'] }] } as KubeObject,
    ];
    const svc = hook('svc.example.com', { clientConfig: { service: { namespace: 'default', name: 'hook', path: '/deny', port: 443 }, caBundle } });
    await assert.rejects(validatingAdmissionWebhook(source([svc], [], objects)).validate(attrs('bad')), /denied the request: no pods named bad/);
    await assert.rejects(validatingAdmissionWebhook(source([svc], [], [])).validate(attrs('bad')), (e: ApiError) => {
      assert.equal(e.message, 'Internal error occurred: failed calling webhook "svc.example.com": failed to call webhook: Post "https://hook.default.svc:443/deny?timeout=10s": service "hook" not found');
      return true;
    });
  });

  it('reinvokes an IfNeeded webhook once when a later webhook changed the object', async () => {
    paths.length = 0;
    const first = hook('first.example.com', { reinvocationPolicy: 'IfNeeded', clientConfig: { url: `https://127.0.0.1:${port}/allow`, caBundle } });
    const second = hook('second.example.com', { clientConfig: { url: `https://127.0.0.1:${port}/label`, caBundle } });
    await mutatingAdmissionWebhook(source([], [first, second])).admit(attrs('p'));
    assert.deepEqual(paths, ['/allow', '/label', '/allow']);
    paths.length = 0;
    await mutatingAdmissionWebhook(source([], [{ ...first, reinvocationPolicy: 'Never' }, second])).admit(attrs('p'));
    assert.deepEqual(paths, ['/allow', '/label']);
  });

  it('gives up after the timeout with "context deadline exceeded"', async () => {
    const target = { url: `https://127.0.0.1:${port}/hang?timeout=1s`, serverName: '127.0.0.1', host: '127.0.0.1', port, path: '/hang?timeout=1s' };
    await assert.rejects(postReview('slow.example.com', target, {}, caBundle, 50), (e: Error) => {
      assert.equal(e.message, `failed calling webhook "slow.example.com": failed to call webhook: Post "https://127.0.0.1:${port}/hang?timeout=1s": context deadline exceeded`);
      return true;
    });
  });

  it('skips webhooks whose namespaceSelector or objectSelector exclude the request', async () => {
    const deny = { url: `https://127.0.0.1:${port}/deny`, caBundle };
    const notSystem = hook('ns.example.com', { clientConfig: deny, namespaceSelector: { matchExpressions: [{ key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] }] } });
    await validatingAdmissionWebhook(source([notSystem])).validate(attrs('bad', 'kube-system'));
    await assert.rejects(validatingAdmissionWebhook(source([notSystem])).validate(attrs('bad', 'default')), /denied/);
    const labelled = hook('obj.example.com', { clientConfig: deny, objectSelector: { matchLabels: { check: 'yes' } } });
    await validatingAdmissionWebhook(source([labelled])).validate(attrs('bad'));
  });

  it('never calls a webhook for writes of the webhook configurations themselves', async () => {
    const all = hook('all.example.com', { rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'], scope: '*' }], clientConfig: { url: `https://127.0.0.1:${port}/deny`, caBundle } });
    const a = { ...attrs('cfg', ''), kind: { group: 'admissionregistration.k8s.io', version: 'v1', kind: 'ValidatingWebhookConfiguration' }, resource: { group: 'admissionregistration.k8s.io', version: 'v1', resource: 'validatingwebhookconfigurations' } };
    await validatingAdmissionWebhook(source([all])).validate(a);
    await assert.rejects(validatingAdmissionWebhook(source([all])).validate(attrs('cm')), /denied/);
  });

  it('refuses a dry run for a webhook with side effects', async () => {
    const a = { ...attrs('x'), dryRun: true };
    await assert.rejects(validatingAdmissionWebhook(source([hook('some.example.com', { sideEffects: 'Some' })])).validate(a), (e: ApiError) => {
      assert.deepEqual([e.code, e.message], [400, 'admission webhook "some.example.com" does not support dry run']);
      return true;
    });
  });

  it('matches rules by operation, group, version, resource, subresource and scope', () => {
    const a = attrs('x');
    const status = { ...a, operation: 'UPDATE' as const, subresource: 'status' };
    const r = (resources: string[], scope = '*') => ({ operations: ['*'], apiGroups: ['*'], apiVersions: ['v1'], resources, scope });
    assert.equal(ruleMatches(r(['*']), a), true);
    assert.equal(ruleMatches(r(['*']), status), false);
    assert.equal(ruleMatches(r(['pods/status']), status), true);
    assert.equal(ruleMatches(r(['*/*']), status), true);
    assert.equal(ruleMatches(r(['pods/*']), a), true); // "*" after the slash takes the object itself too
    assert.equal(ruleMatches(r(['pods/log']), a), false);
    assert.equal(ruleMatches(r(['pods'], 'Cluster'), a), false);
    assert.equal(ruleMatches(r(['pods'], 'Namespaced'), a), true);
    assert.equal(ruleMatches({ ...r(['pods']), apiVersions: ['v2'] }, a), false);
    assert.equal(ruleMatches({ ...r(['pods']), operations: ['DELETE'] }, a), false);
  });
});

describe('matchConditions', () => {
  const request = { operation: 'CREATE', object: { metadata: { name: 'a', labels: { skip: 'true' } } }, oldObject: null, userInfo: { username: 'alice' } };
  it('skip a webhook when one is false, call it when all are true, and report errors', async () => {
    const { evaluateMatchConditions } = await import('./conditions.js');
    assert.deepEqual(evaluateMatchConditions([{ name: 'not-skipped', expression: "!has(object.metadata.labels) || !('skip' in object.metadata.labels)" }], request), { matches: false });
    assert.deepEqual(evaluateMatchConditions([{ name: 'alice', expression: "request.userInfo.username == 'alice'" }, { name: 'create', expression: "request.operation == 'CREATE'" }], request), { matches: true });
    assert.ok('error' in evaluateMatchConditions([{ name: 'bad', expression: 'object.spec.replicas > 1' }], request));
  });
});

import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:https';
import { createCa, issueCertificate } from '@kplane/apiserver';
import { eventually, kubectl, kubectlOk, localServiceYaml, useKplane } from './harness.js';

interface Review {
  request: {
    uid: string;
    name: string;
    namespace: string;
    operation: string;
    kind: { group: string; version: string; kind: string };
    requestKind: { group: string; version: string; kind: string };
    object: { apiVersion: string; metadata: { labels?: Record<string, string> } };
  };
}

/** Answers AdmissionReviews: /validate denies ConfigMaps named "forbidden-*", /mutate adds a label, /hpa denies saying which version it was called for. */
function answer(path: string, review: Review): unknown {
  const { uid, name } = review.request;
  if (path === '/hpa') {
    const { kind, requestKind, object } = review.request;
    return { uid, allowed: false, status: { code: 403, message: `called for ${kind.group}/${kind.version} ${kind.kind} with a ${object.apiVersion} object, asked through ${requestKind.group}/${requestKind.version}` } };
  }
  if (path === '/validate' && name.startsWith('forbidden-')) return { uid, allowed: false, status: { code: 403, message: `the name ${name} is not allowed here` } };
  if (path === '/mutate') {
    const labels = review.request.object.metadata.labels ?? {};
    const patch = [{ op: 'add', path: '/metadata/labels', value: { ...labels, 'mutated-by': 'webhook' } }];
    return { uid, allowed: true, patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64'), warnings: ['labelled by the webhook'] };
  }
  return { uid, allowed: true };
}

describe('admission webhooks reached through a Service and its EndpointSlice', () => {
  const suite = useKplane(['--nodes', '0', '--storage', 'memory']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  let server: Server;
  let port: number;
  let stoppedPort: number;
  let caBundle: string;

  before(async () => {
    const ca = await createCa('webhook-test-ca');
    const serving = await issueCertificate(ca, { subject: 'CN=webhook.default.svc', usage: 'server', dnsNames: ['webhook.default.svc', 'stopped.default.svc'] });
    caBundle = Buffer.from(ca.pem.cert).toString('base64');
    server = createServer({ cert: serving.cert, key: serving.key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString()) as Review;
        const response = answer(req.url!.split('?')[0]!, review);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    port = (server.address() as { port: number }).port;
    // A port nothing listens on: a server started and closed again.
    const stopped = createServer();
    await new Promise<void>((r) => stopped.listen(0, '127.0.0.1', r));
    stoppedPort = (stopped.address() as { port: number }).port;
    await new Promise<void>((r) => stopped.close(() => r()));

    const service = (name: string, target: number) => localServiceYaml(name, target);
    const hook = (name: string, svc: string, path: string, extra: string) => `- name: ${name}
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    service: {namespace: default, name: ${svc}, path: ${path}}
    caBundle: ${caBundle}
  rules: [{operations: [CREATE, UPDATE], apiGroups: [""], apiVersions: [v1], resources: [configmaps]}]
${extra}`;
    const manifest = `${service('webhook', port)}${service('stopped', stoppedPort)}apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: names}
webhooks:
${hook('names.kplane.test', 'webhook', '/validate', `  namespaceSelector:
    matchExpressions: [{key: kubernetes.io/metadata.name, operator: NotIn, values: [kube-system]}]`)}
${hook('closed.kplane.test', 'stopped', '/validate', '  objectSelector: {matchLabels: {policy: fail}}')}
${hook('open.kplane.test', 'stopped', '/validate', `  objectSelector: {matchLabels: {policy: ignore}}
  failurePolicy: Ignore`)}
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: labels}
webhooks:
${hook('labels.kplane.test', 'webhook', '/mutate', '  objectSelector: {matchLabels: {mutate: "yes"}}')}
`;
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], manifest);
  });
  after(() => server?.close());

  it('serves the configurations with their defaults and Table columns', async () => {
    const v = JSON.parse(await k('get', 'validatingwebhookconfiguration', 'names', '-o', 'json'));
    const w = v.webhooks[0];
    assert.deepEqual([w.failurePolicy, w.matchPolicy, w.timeoutSeconds, w.clientConfig.service.port, w.rules[0].scope], ['Fail', 'Equivalent', 10, 443, '*']);
    assert.match(await k('get', 'mutatingwebhookconfigurations'), /^NAME\s+WEBHOOKS\s+AGE\nlabels\s+1\s+/);
  });

  it('a validating webhook denies with its message', async () => {
    const r = await eventually('the webhook denies', async () => {
      const out = await kubectl(suite.kp.kubeconfig, ['create', 'configmap', 'forbidden-one']);
      return out.code !== 0 ? out : undefined;
    });
    assert.match(r.stderr, /configmaps "forbidden-one" is forbidden: admission webhook "names.kplane.test" denied the request: the name forbidden-one is not allowed here/);
    await k('create', 'configmap', 'allowed-one');
  });

  it('a namespaceSelector leaves kube-system out', async () => {
    await k('create', 'configmap', 'forbidden-two', '-n', 'kube-system');
  });

  it('a mutating webhook adds a label, and its warning reaches kubectl', async () => {
    const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: labelled, labels: {mutate: "yes"}}\n';
    const created = await kubectl(suite.kp.kubeconfig, ['create', '-f', '-'], manifest);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /^Warning: labelled by the webhook$/m);
    const labels = JSON.parse(await k('get', 'configmap', 'labelled', '-o', 'json')).metadata.labels;
    assert.deepEqual(labels, { mutate: 'yes', 'mutated-by': 'webhook' });
  });

  it('with the webhook stopped, failurePolicy Fail refuses with Kubernetes\' error and Ignore lets the object through', async () => {
    const r = await kubectl(suite.kp.kubeconfig, ['create', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: closed, labels: {policy: fail}}\n');
    assert.notEqual(r.code, 0);
    assert.match(
      r.stderr,
      new RegExp(`Internal error occurred: failed calling webhook "closed.kplane.test": failed to call webhook: Post "https://stopped.default.svc:443/validate\\?timeout=10s": dial tcp 127.0.0.1:${stoppedPort}: connect: connection refused`),
    );
    await kubectlOk(suite.kp.kubeconfig, ['create', '-f', '-'], 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: open, labels: {policy: ignore}}\n');
  });
  it('kubectl get --raw /metrics shows the webhook calls: latency, requests and rejections', async () => {
    const text = await k('get', '--raw', '/metrics');
    const value = (series: string) => Number(text.split('\n').find((l) => l.startsWith(`${series} `))?.slice(series.length + 1));
    const names = 'name="names.kplane.test",type="validating",operation="CREATE"';
    assert.ok(value(`apiserver_admission_webhook_admission_duration_seconds_count{${names},rejected="true"}`) >= 1, text);
    assert.ok(value(`apiserver_admission_webhook_request_total{${names},code="200",rejected="false"}`) >= 1);
    assert.ok(value(`apiserver_admission_webhook_rejection_count{${names},error_type="no_error",rejection_code="403"}`) >= 1);
    assert.equal(value('apiserver_admission_webhook_rejection_count{name="closed.kplane.test",type="validating",operation="CREATE",error_type="calling_webhook_error",rejection_code="400"}'), 1);
    assert.equal(value('apiserver_admission_webhook_fail_open_count{name="open.kplane.test",type="validating"}'), 1);
    assert.ok(value('apiserver_admission_webhook_request_total{name="labels.kplane.test",type="admit",operation="CREATE",code="200",rejected="false"}') >= 1);
  });
  it('matchPolicy Equivalent: a webhook for autoscaling/v2 HPAs gets an autoscaling/v1 create converted to v2', async () => {
    const config = `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: hpa-v2}
webhooks:
- name: hpa-v2.kplane.test
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    service: {namespace: default, name: webhook, path: /hpa}
    caBundle: ${caBundle}
  rules: [{operations: [CREATE], apiGroups: [autoscaling], apiVersions: [v2], resources: [horizontalpodautoscalers]}]
`;
    await kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], config);
    const hpa = 'apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: web}\nspec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, maxReplicas: 3, targetCPUUtilizationPercentage: 50}\n';
    const r = await eventually('the HPA webhook denies', async () => {
      const out = await kubectl(suite.kp.kubeconfig, ['create', '-f', '-'], hpa);
      return out.code !== 0 ? out : undefined;
    });
    assert.match(r.stderr, /horizontalpodautoscalers.autoscaling "web" is forbidden: admission webhook "hpa-v2.kplane.test" denied the request: called for autoscaling\/v2 HorizontalPodAutoscaler with a autoscaling\/v2 object, asked through autoscaling\/v1/);
    await k('delete', 'validatingwebhookconfiguration', 'hpa-v2');
  });
});

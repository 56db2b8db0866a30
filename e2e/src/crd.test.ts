import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { eventually, kubectl, kubectlOk, removeDir, startKplane, tempDir, widgetCrd, type KplaneProcess } from './harness.js';

/** The CRD chapter's Greeting CustomResourceDefinition, as the reader applies it. */
const GREETING_CRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: greetings.demo.example.com
spec:
  group: demo.example.com
  scope: Namespaced
  names:
    kind: Greeting
    listKind: GreetingList
    plural: greetings
    singular: greeting
    shortNames: [gr]
    categories: [demo]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.readyReplicas
        labelSelectorPath: .status.selector
    additionalPrinterColumns:
    - name: Version
      type: string
      jsonPath: .spec.version
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
    - name: Ready
      type: integer
      jsonPath: .status.readyReplicas
    - name: URL
      type: string
      jsonPath: .status.url
      priority: 1
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    selectableFields:
    - jsonPath: .spec.version
    schema:
      openAPIV3Schema:
        type: object
        required: [spec]
        properties:
          spec:
            type: object
            required: [version]
            properties:
              version:
                type: string
                pattern: '^[0-9]+\\.[0-9]+(\\.[0-9]+)?$'
                description: Tag of the ghcr.io/example/hello image
              message:
                type: string
                maxLength: 200
                default: hello
              replicas:
                type: integer
                minimum: 1
                maximum: 10
                default: 2
              host:
                type: string
                maxLength: 253
                x-kubernetes-validations:
                - rule: self == oldSelf
                  message: host cannot be changed, create a new Greeting
            x-kubernetes-validations:
            - rule: "!has(self.host) || self.host.endsWith('.apps.example.com')"
              message: host must be in the apps.example.com zone
              fieldPath: .host
            - rule: "!has(self.host) || self.replicas >= 2"
              messageExpression: "MESSAGE_EXPRESSION"
              reason: FieldValueForbidden
          status:
            type: object
            properties:
              readyReplicas:
                type: integer
              selector:
                type: string
              url:
                type: string
              observedGeneration:
                type: integer
                format: int64
              conditions:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [type]
                items:
                  type: object
                  required: [type, status]
                  properties:
                    type: {type: string}
                    status: {type: string, enum: ["True", "False", "Unknown"]}
                    reason: {type: string}
                    message: {type: string}
                    lastTransitionTime: {type: string, format: date-time}
                    observedGeneration: {type: integer, format: int64}
`;

const crd = (messageExpression: string) => GREETING_CRD.replace('"MESSAGE_EXPRESSION"', JSON.stringify(messageExpression));
const CONCATENATION = "'a public application needs at least 2 replicas, got ' + string(self.replicas)";
const FORMAT = "'a public application needs at least 2 replicas, got %d'.format([self.replicas])";

const greeting = (spec: string) => `apiVersion: demo.example.com/v1
kind: Greeting
metadata:
  name: hello
  namespace: demo
spec:
${spec}`;

describe('the CRD chapter with kubectl against kplane up', () => {
  let kp: KplaneProcess;
  let dir: string;
  const k = (...args: string[]) => kubectlOk(kp.kubeconfig, args);
  const kIn = (input: string, ...args: string[]) => kubectlOk(kp.kubeconfig, args, input);
  const kFail = async (input: string | undefined, ...args: string[]) => {
    const r = await kubectl(kp.kubeconfig, args, input);
    assert.notEqual(r.code, 0, `kubectl ${args.join(' ')} should fail:\n${r.stdout}`);
    return r.stderr;
  };

  before(async () => {
    dir = await tempDir('kplane-crd-e2e-');
    kp = await startKplane(dir);
    await k('create', 'namespace', 'demo');
  });

  after(async () => {
    await kp?.stop();
    await removeDir(dir);
  });

  it('refuses the first version of the CRD, whose message concatenation is too expensive', async () => {
    const err = await kFail(crd(CONCATENATION), 'apply', '-f', '-');
    assert.ok(
      err.startsWith(
        'The CustomResourceDefinition "greetings.demo.example.com" is invalid: \n* spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].messageExpression: Forbidden: estimated messageExpression cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)\n',
      ),
      err,
    );
  });

  it('applies the CRD: NamesAccepted, Established, api-resources, explain, the empty list', async () => {
    assert.equal(await kIn(crd(FORMAT), 'apply', '-f', '-'), 'customresourcedefinition.apiextensions.k8s.io/greetings.demo.example.com created\n');
    assert.equal(await k('get', 'crd', 'greetings.demo.example.com', '-o', 'jsonpath={range .status.conditions[*]}{.type}={.status}{"\\n"}{end}'), 'NamesAccepted=True\nEstablished=True\n');
    const resources = await k('api-resources', '--api-group=demo.example.com');
    assert.match(resources, /^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND\n/);
    assert.match(resources, /^greetings\s+gr\s+demo\.example\.com\/v1\s+true\s+Greeting$/m);
    const explain = await k('explain', 'greeting.spec.version');
    assert.match(explain, /^GROUP:\s+demo\.example\.com$/m);
    assert.match(explain, /^KIND:\s+Greeting$/m);
    assert.match(explain, /^VERSION:\s+v1$/m);
    assert.match(explain, /^FIELD: version <string>$/m);
    assert.match(explain, /DESCRIPTION:\n\s+Tag of the ghcr\.io\/example\/hello image/);
    const raw = await k('get', '--raw', '/apis/demo.example.com/v1/namespaces/demo/greetings');
    assert.match(raw, /^\{"apiVersion":"demo\.example\.com\/v1","items":\[\],"kind":"GreetingList","metadata":\{"continue":"","resourceVersion":"\d+"\}\}$/);
  });

  it('rejects the invalid Greeting with both errors and unknown fields in strict mode', async () => {
    const err = await kFail(greeting('  version: "1.0"\n  replicas: 1\n  host: hello.example.org\n'), 'apply', '-f', '-');
    assert.equal(err, 'The Greeting "hello" is invalid: \n* spec.host: Invalid value: host must be in the apps.example.com zone\n* spec: Forbidden: a public application needs at least 2 replicas, got 1\n');
    const strict = await kFail(greeting('  version: "1.0"\n  replica: 3\n'), 'apply', '-f', '-');
    assert.match(strict, /Greeting in version "v1" cannot be handled as a Greeting: strict decoding error: unknown field "spec\.replica"/);
  });

  it('creates the corrected Greeting with the default replicas and prints its columns', async () => {
    assert.equal(await kIn(greeting('  version: "1.0"\n  message: hi\n  host: hello.apps.example.com\n'), 'apply', '-f', '-'), 'greeting.demo.example.com/hello created\n');
    const table = await k('-n', 'demo', 'get', 'gr');
    assert.match(table, /^NAME\s+VERSION\s+REPLICAS\s+READY\s+AGE\n/);
    assert.match(table, /^hello\s+1\.0\s+2\s+\d+s\n$/m);
    const wide = await k('-n', 'demo', 'get', 'gr', '-o', 'wide');
    assert.match(wide, /^NAME\s+VERSION\s+REPLICAS\s+READY\s+URL\s+AGE\n/);
    assert.match(await k('get', 'demo', '-n', 'demo'), /^hello\s+1\.0\s+2\s+/m);
  });

  it('publishes the Greeting in /openapi/v2: explain v2 and client-side apply read it', async () => {
    const explain = await k('explain', 'greeting.spec', '--output=plaintext-openapiv2');
    assert.match(explain, /^KIND:\s+Greeting$/m);
    assert.match(explain, /^VERSION:\s+demo\.example\.com\/v1$/m);
    assert.match(explain, /^\s+version\s+<string> -required-\n\s+Tag of the ghcr\.io\/example\/hello image$/m);
    assert.match(explain, /^\s+replicas\s+<integer>$/m);
    const doc = JSON.parse(await k('get', '--raw', '/openapi/v2'));
    const item = doc.paths['/apis/demo.example.com/v1/namespaces/{namespace}/greetings/{name}'];
    assert.ok(!item.patch.consumes.includes('application/strategic-merge-patch+json'));
    // kubectl apply finds no strategic merge patch for the kind in the v3 document, asks /openapi/v2,
    // and sends a merge patch as the PATCH's consumes say.
    // (A label only: the spec, and so the generation the next steps count, stays as it is.)
    const labelled = greeting('  version: "1.0"\n  message: hi\n  host: hello.apps.example.com\n').replace('  namespace: demo\n', '  namespace: demo\n  labels: {tier: web}\n');
    const applied = await kubectl(kp.kubeconfig, ['apply', '-f', '-', '-v=6'], labelled);
    assert.equal(applied.code, 0, applied.stderr);
    assert.match(applied.stderr, /GET https:\/\/\S+\/openapi\/v2\?timeout=\S+ 200 OK/);
    assert.match(applied.stdout, /^greeting\.demo\.example\.com\/hello configured$/m);
    assert.equal(await k('-n', 'demo', 'get', 'greeting', 'hello', '-o', 'jsonpath={.metadata.labels.tier} {.metadata.generation}'), 'web 1');
  });

  it('checks the transition rule on host', async () => {
    const err = await kFail(undefined, '-n', 'demo', 'patch', 'gr', 'hello', '--type=merge', '-p', '{"spec":{"host":"hello2.apps.example.com"}}');
    assert.equal(err, 'The Greeting "hello" is invalid: spec.host: Invalid value: "hello2.apps.example.com": host cannot be changed, create a new Greeting\n');
  });

  it('filters on the selectable field on the server', async () => {
    const none = await kubectl(kp.kubeconfig, ['-n', 'demo', 'get', 'greetings', '--field-selector', 'spec.version=1.1']);
    assert.equal(none.code, 0);
    assert.equal(none.stderr, 'No resources found in demo namespace.\n');
    assert.match(await k('-n', 'demo', 'get', 'greetings', '--field-selector', 'spec.version=1.0'), /^hello\s+1\.0\s+/m);
  });

  it('scales through the scale subresource', async () => {
    assert.equal(await k('-n', 'demo', 'scale', 'greeting', 'hello', '--replicas=3'), 'greeting.demo.example.com/hello scaled\n');
    assert.equal(await k('-n', 'demo', 'get', 'greeting', 'hello', '-o', 'jsonpath={.metadata.generation}'), '2');
    const scale = JSON.parse(await k('get', '--raw', '/apis/demo.example.com/v1/namespaces/demo/greetings/hello/scale'));
    assert.deepEqual([scale.kind, scale.apiVersion, scale.metadata.name, scale.spec], ['Scale', 'autoscaling/v1', 'hello', { replicas: 3 }]);
  });

  it('holds a deleted Greeting with a finalizer until the finalizer is removed', async () => {
    assert.equal(await k('-n', 'demo', 'patch', 'greeting', 'hello', '--type=merge', '-p', '{"metadata":{"finalizers":["demo.example.com/cleanup"]}}'), 'greeting.demo.example.com/hello patched\n');
    assert.match(await k('-n', 'demo', 'delete', 'greeting', 'hello', '--wait=false'), /^greeting\.demo\.example\.com "hello" deleted/);
    assert.match(await k('-n', 'demo', 'get', 'greeting', 'hello', '-o', 'jsonpath={.metadata.deletionTimestamp} {.metadata.finalizers}'), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \["demo\.example\.com\/cleanup"\]$/);
    assert.equal(await k('-n', 'demo', 'patch', 'greeting', 'hello', '--type=merge', '-p', '{"metadata":{"finalizers":null}}'), 'greeting.demo.example.com/hello patched\n');
    const gone = await kubectl(kp.kubeconfig, ['-n', 'demo', 'get', 'greeting']);
    assert.equal(gone.stderr, 'No resources found in demo namespace.\n');
  });

  it('deleting the CRD deletes its objects and the resource leaves discovery', async () => {
    await kIn(greeting('  version: "2.0"\n'), 'apply', '-f', '-');
    assert.match(await k('delete', 'crd', 'greetings.demo.example.com'), /customresourcedefinition\.apiextensions\.k8s\.io "greetings\.demo\.example\.com" deleted/);
    assert.doesNotMatch(await k('api-resources', '--api-group=demo.example.com'), /greetings/);
    assert.match(await kFail(undefined, 'get', 'crd', 'greetings.demo.example.com'), /NotFound/);
  });
  it('a kind the server does not serve (absent from /openapi/v3 too): kubectl says no matches for kind, as against kube-apiserver', async () => {
    const crd = widgetCrd('demo.example.com', { type: 'object', 'x-kubernetes-preserve-unknown-fields': true });
    const widget = 'apiVersion: demo.example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: demo\nspec: {size: 1}\n';
    const missing = await kubectl(kp.kubeconfig, ['apply', '-f', '-'], 'apiVersion: apps/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: demo\n');
    assert.equal(missing.stderr, 'error: resource mapping not found for name: "w" namespace: "demo" from "STDIN": no matches for kind "Widget" in version "apps/v1"\nensure CRDs are installed first\n');
    // The CRD and an object of its kind in one manifest: the kind is not known when kubectl maps the manifest.
    const both = await kubectl(kp.kubeconfig, ['apply', '-f', '-'], `${crd}---\n${widget}`);
    assert.equal(both.stdout, 'customresourcedefinition.apiextensions.k8s.io/widgets.demo.example.com created\n');
    assert.equal(both.stderr, 'error: resource mapping not found for name: "w" namespace: "demo" from "STDIN": no matches for kind "Widget" in version "demo.example.com/v1"\nensure CRDs are installed first\n');
    await eventually('the Widget is served', async () => (await kubectl(kp.kubeconfig, ['-n', 'demo', 'get', 'widgets'])).code === 0);
    assert.equal(await kIn(`${crd}---\n${widget}`, 'apply', '-f', '-'), 'customresourcedefinition.apiextensions.k8s.io/widgets.demo.example.com unchanged\nwidget.demo.example.com/w created\n');
    await k('delete', 'crd', 'widgets.demo.example.com');
  });
  it("installs a CRD as operators write them: escaped property names in rules, metadata required at the root, RE2 patterns", async () => {
    const routeCrd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: routes.demo.example.com
spec:
  group: demo.example.com
  scope: Namespaced
  names: {kind: Route, plural: routes, singular: route, listKind: RouteList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        required: [metadata, spec]
        properties:
          spec:
            type: object
            properties:
              scheme: {type: string, pattern: '(?i)^https?$'}
              parentRefs:
                type: array
                maxItems: 32
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string, maxLength: 253}
                    namespace: {type: string, maxLength: 63}
                x-kubernetes-validations:
                - message: parentRefs must be unique
                  rule: "self.all(p1, self.exists_one(p2, p1.name == p2.name && (has(p1.__namespace__) ? p1.__namespace__ : '') == (has(p2.__namespace__) ? p2.__namespace__ : '')))"
`;
    const route = (name: string, spec: string) => `apiVersion: demo.example.com/v1\nkind: Route\nmetadata:\n  name: ${name}\n  namespace: demo\nspec:\n${spec}`;
    assert.equal(await kIn(routeCrd, 'apply', '-f', '-'), 'customresourcedefinition.apiextensions.k8s.io/routes.demo.example.com created\n');
    await eventually('the Route is served', async () => (await kubectl(kp.kubeconfig, ['-n', 'demo', 'get', 'routes'])).code === 0);
    const ok = route('r', '  scheme: HTTPS\n  parentRefs:\n  - {name: gw, namespace: infra}\n  - {name: gw}\n');
    assert.equal(await kIn(ok, 'apply', '-f', '-'), 'route.demo.example.com/r created\n');
    const dup = await kFail(route('dup', '  parentRefs:\n  - {name: gw, namespace: infra}\n  - {name: gw, namespace: infra}\n'), 'apply', '-f', '-');
    assert.match(dup, /^The Route "dup" is invalid: spec\.parentRefs: Invalid value: .*parentRefs must be unique\n$/);
    const ftp = await kFail(route('ftp', '  scheme: ftp\n'), 'apply', '-f', '-');
    assert.match(ftp, /spec\.scheme: Invalid value: "ftp": spec\.scheme in body should match '\(\?i\)\^https\?\$'/);
    await k('delete', 'crd', 'routes.demo.example.com');
  });
});

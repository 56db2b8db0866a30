/**
 * Storage with the real kubectl against a `kplane up` process: the default StorageClass, a
 * claim bound to a provisioned volume (`kubectl get pvc,pv`), a pre-made volume matched by a
 * claim and Retained after it goes, a StatefulSet's claims, a WaitForFirstConsumer claim bound
 * once its pod is scheduled, and a used claim's deletion held by pvc-protection until its pod
 * goes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventually, kubectl, kubectlOk, useKplane } from './harness.js';

const claimYaml = (name: string, extra = '', size = '1Gi') => `apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ${name}
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: ${size}
${extra}`;

const podYaml = (name: string, claim: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
spec:
  terminationGracePeriodSeconds: 0
  containers:
  - name: main
    image: busybox
    volumeMounts:
    - name: data
      mountPath: /data
  volumes:
  - name: data
    persistentVolumeClaim:
      claimName: ${claim}
`;

const cells = (line: string) => line.trim().split(/\s{2,}/);

describe('storage', () => {
  const suite = useKplane(['--nodes', '1']);
  const k = (...args: string[]) => kubectlOk(suite.kp.kubeconfig, args);
  const apply = (yaml: string) => kubectlOk(suite.kp.kubeconfig, ['apply', '-f', '-'], yaml);
  const jsonpath = (kind: string, name: string, path: string) => k('get', kind, name, '-o', `jsonpath={${path}}`);

  it('serves the default StorageClass standard', async () => {
    const table = (await k('get', 'sc')).trim().split('\n');
    assert.deepEqual(cells(table[0]!), ['NAME', 'PROVISIONER', 'RECLAIMPOLICY', 'VOLUMEBINDINGMODE', 'ALLOWVOLUMEEXPANSION', 'AGE']);
    assert.deepEqual(cells(table[1]!).slice(0, 5), ['standard (default)', 'kplane.io/simulated', 'Delete', 'Immediate', 'true']);
  });

  it('a claim gets the default class, a provisioned volume, and is bound both ways', async () => {
    await apply(claimYaml('data'));
    await eventually('claim bound', async () => (await jsonpath('pvc', 'data', '.status.phase')) === 'Bound');
    const uid = await jsonpath('pvc', 'data', '.metadata.uid');
    const out = (await k('get', 'pvc,pv')).trim().split('\n');
    const pvc = out.find((l) => l.startsWith('persistentvolumeclaim/data'))!;
    assert.deepEqual(cells(pvc).slice(0, 7), ['persistentvolumeclaim/data', 'Bound', `pvc-${uid}`, '1Gi', 'RWO', 'standard', '<unset>']);
    const pv = out.find((l) => l.startsWith(`persistentvolume/pvc-${uid}`))!;
    assert.deepEqual(cells(pv).slice(0, 8), [`persistentvolume/pvc-${uid}`, '1Gi', 'RWO', 'Delete', 'Bound', 'default/data', 'standard', '<unset>']);
    const ann = JSON.parse(await jsonpath('pvc', 'data', '.metadata.annotations'));
    assert.equal(ann['pv.kubernetes.io/bind-completed'], 'yes');
    assert.equal(ann['pv.kubernetes.io/bound-by-controller'], 'yes');
    assert.equal(ann['volume.kubernetes.io/storage-provisioner'], 'kplane.io/simulated');
    assert.equal(await jsonpath('pv', `pvc-${uid}`, '.metadata.annotations.pv\\.kubernetes\\.io/provisioned-by'), 'kplane.io/simulated');
    await eventually('pvc-protection finalizer', async () => (await jsonpath('pvc', 'data', '.metadata.finalizers')).includes('kubernetes.io/pvc-protection'));
    // Expansion on the expandable default class.
    await k('patch', 'pvc', 'data', '--type=merge', '-p', '{"spec":{"resources":{"requests":{"storage":"2Gi"}}}}');
    await eventually('capacity grown', async () => (await jsonpath('pvc', 'data', '.status.capacity.storage')) === '2Gi');
    assert.equal(await jsonpath('pv', `pvc-${uid}`, '.spec.capacity.storage'), '2Gi');
    // Delete reclaim: the volume goes with its claim.
    await k('delete', 'pvc', 'data');
    await eventually('volume deleted', async () => (await kubectl(suite.kp.kubeconfig, ['get', 'pv', `pvc-${uid}`])).code !== 0);
  });

  it('a claim binds an Available volume of its class; Retain leaves it Released', async () => {
    await apply(`apiVersion: v1
kind: PersistentVolume
metadata:
  name: manual
  labels: {tier: gold}
spec:
  capacity: {storage: 5Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: slow
  hostPath: {path: /data/manual}
`);
    await eventually('volume available', async () => (await jsonpath('pv', 'manual', '.status.phase')) === 'Available');
    await apply(claimYaml('gold', '  storageClassName: slow\n  selector:\n    matchLabels: {tier: gold}\n', '3Gi'));
    await eventually('claim bound', async () => (await jsonpath('pvc', 'gold', '.spec.volumeName')) === 'manual' && (await jsonpath('pvc', 'gold', '.status.phase')) === 'Bound');
    assert.equal(await jsonpath('pvc', 'gold', '.status.capacity.storage'), '5Gi');
    await k('delete', 'pvc', 'gold');
    await eventually('volume released', async () => (await jsonpath('pv', 'manual', '.status.phase')) === 'Released');
    const row = cells((await k('get', 'pv', 'manual')).trim().split('\n')[1]!);
    assert.deepEqual(row.slice(0, 7), ['manual', '5Gi', 'RWO,ROX', 'Retain', 'Released', 'default/gold', 'slow']);
  });

  it("a StatefulSet's claims bind", async () => {
    await apply(`apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  replicas: 2
  serviceName: db
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers:
      - name: db
        image: busybox
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 1Gi}}
`);
    for (const name of ['data-db-0', 'data-db-1']) {
      await eventually(`${name} bound`, async () => (await kubectl(suite.kp.kubeconfig, ['get', 'pvc', name, '-o', 'jsonpath={.status.phase}'])).stdout === 'Bound', 40_000);
    }
  });

  it('a WaitForFirstConsumer claim waits for its pod to be scheduled, then binds', async () => {
    await apply(`apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: local
provisioner: kplane.io/simulated
volumeBindingMode: WaitForFirstConsumer
`);
    await apply(claimYaml('late', '  storageClassName: local\n'));
    await eventually('waiting event', async () => (await k('get', 'events', '--field-selector', 'involvedObject.name=late')).includes('WaitForFirstConsumer'));
    assert.equal(await jsonpath('pvc', 'late', '.status.phase'), 'Pending');
    await apply(podYaml('consumer', 'late'));
    await eventually('claim bound', async () => (await jsonpath('pvc', 'late', '.status.phase')) === 'Bound');
    const node = await jsonpath('pod', 'consumer', '.spec.nodeName');
    assert.equal(await jsonpath('pvc', 'late', '.metadata.annotations.volume\\.kubernetes\\.io/selected-node'), node);
  });

  it('deleting a used claim waits for its pod (pvc-protection)', async () => {
    await apply(claimYaml('held'));
    await apply(podYaml('user', 'held'));
    await eventually('finalizer', async () => (await jsonpath('pvc', 'held', '.metadata.finalizers')).includes('kubernetes.io/pvc-protection'));
    await k('delete', 'pvc', 'held', '--wait=false');
    const row = cells((await k('get', 'pvc', 'held')).trim().split('\n')[1]!);
    assert.equal(row[1], 'Terminating');
    await k('delete', 'pod', 'user', '--grace-period=0', '--force');
    await eventually('claim gone', async () => (await kubectl(suite.kp.kubeconfig, ['get', 'pvc', 'held'])).code !== 0);
  });
});

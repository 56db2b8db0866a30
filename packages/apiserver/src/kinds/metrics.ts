/**
 * metrics.k8s.io/v1beta1 pods and nodes (PodMetrics, NodeMetrics), what metrics-server serves
 * through the aggregator; kplane serves them itself from its kubelets' simulated usage. They are
 * read-only and never stored: each request reads the registered sources (see
 * server/resource-metrics.ts).
 *
 * The schemas are not in the model (the types live in k8s.io/metrics, not k8s.io/api): they are
 * declared here by hand, as small as the served objects need.
 */
import type { KubeObject, SchemaDefinitions } from '@kplane/api';
import type { KindBundle, ResourceType, TableSpec } from '../registry/resource.js';
import { NAME_COLUMN } from './pod.js';
import { asObj, objs, str } from './util.js';

/** The group/version of the resource metrics API. */
export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';

/** Reads the current metrics objects of a kind ("pods" or "nodes"). */
export type MetricsReader = (resource: 'pods' | 'nodes') => KubeObject[];

const PREFIX = 'io.k8s.metrics.pkg.apis.metrics.v1beta1';
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const META = ref('io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta');
const LIST_META = ref('io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta');
const TIME = ref('io.k8s.apimachinery.pkg.apis.meta.v1.Time');
const DURATION = { type: 'string', description: 'The window the usage was measured over (a Go duration, "10s").' };
const RESOURCE_LIST = { type: 'object', description: 'Usage by resource name (cpu, memory).', additionalProperties: ref('io.k8s.apimachinery.pkg.api.resource.Quantity') };

function kindSchema(kind: string, description: string, properties: Record<string, unknown>): Record<string, unknown> {
  return {
    type: 'object',
    description,
    properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: META, ...properties },
    'x-kubernetes-group-version-kind': [{ group: METRICS_GROUP, version: METRICS_VERSION, kind }],
  };
}

function listSchema(kind: string, item: string): Record<string, unknown> {
  return {
    type: 'object',
    description: `A list of ${item}.`,
    required: ['items'],
    properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, metadata: LIST_META, items: { type: 'array', items: ref(`${PREFIX}.${item}`) } },
    'x-kubernetes-group-version-kind': [{ group: METRICS_GROUP, version: METRICS_VERSION, kind }],
  };
}

/** The hand-written schemas of PodMetrics, NodeMetrics, ContainerMetrics and their lists. */
export function metricsDefinitions(): SchemaDefinitions {
  return {
    [`${PREFIX}.PodMetrics`]: kindSchema('PodMetrics', 'The resource usage of the containers of a pod.', {
      timestamp: TIME,
      window: DURATION,
      containers: { type: 'array', items: ref(`${PREFIX}.ContainerMetrics`) },
    }),
    [`${PREFIX}.ContainerMetrics`]: { type: 'object', description: 'The resource usage of one container.', required: ['name', 'usage'], properties: { name: { type: 'string' }, usage: RESOURCE_LIST } },
    [`${PREFIX}.NodeMetrics`]: kindSchema('NodeMetrics', 'The resource usage of a node.', { timestamp: TIME, window: DURATION, usage: RESOURCE_LIST }),
    [`${PREFIX}.PodMetricsList`]: listSchema('PodMetricsList', 'PodMetrics'),
    [`${PREFIX}.NodeMetricsList`]: listSchema('NodeMetricsList', 'NodeMetrics'),
  } as SchemaDefinitions;
}

const usageColumns = [
  { name: 'CPU', type: 'string', description: 'CPU usage', priority: 0 },
  { name: 'Memory', type: 'string', description: 'Memory usage', priority: 0 },
  { name: 'Window', type: 'string', description: 'Interval over which the usage was measured', priority: 0 },
];

const podTable: TableSpec = {
  columns: [NAME_COLUMN, ...usageColumns],
  row(obj) {
    const containers = objs((obj as Record<string, unknown>).containers);
    const cpu = containers.map((c) => str(asObj(c.usage)?.cpu)).join(',');
    const memory = containers.map((c) => str(asObj(c.usage)?.memory)).join(',');
    return [obj.metadata?.name ?? '', cpu, memory, str((obj as Record<string, unknown>).window)];
  },
};

const nodeTable: TableSpec = {
  columns: [NAME_COLUMN, ...usageColumns],
  row(obj) {
    const usage = asObj((obj as Record<string, unknown>).usage);
    return [obj.metadata?.name ?? '', str(usage?.cpu), str(usage?.memory), str((obj as Record<string, unknown>).window)];
  },
};

/** The metrics.k8s.io/v1beta1 resources, reading the current usage through `read`. */
export function metricsKinds(read: MetricsReader): KindBundle {
  const common = { group: METRICS_GROUP, version: METRICS_VERSION, verbs: ['get', 'list'] };
  const resources: ResourceType[] = [
    {
      ...common,
      resource: 'nodes',
      kind: 'NodeMetrics',
      listKind: 'NodeMetricsList',
      singular: '',
      namespaced: false,
      schemaName: `${PREFIX}.NodeMetrics`,
      strategy: { generation: false, table: nodeTable },
      read: () => read('nodes'),
    },
    {
      ...common,
      resource: 'pods',
      kind: 'PodMetrics',
      listKind: 'PodMetricsList',
      singular: '',
      namespaced: true,
      schemaName: `${PREFIX}.PodMetrics`,
      strategy: { generation: false, table: podTable },
      read: () => read('pods'),
    },
  ];
  return { resources, definitions: metricsDefinitions() };
}

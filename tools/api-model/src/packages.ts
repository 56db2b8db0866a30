/** The Go API packages the model covers, and where their sources live in the input trees. */

/** Which input tree a package comes from. */
export type SourceTree = 'api' | 'apimachinery' | 'apiextensions' | 'aggregator';

/** One Go API package of the model. */
export interface PackageSpec {
  /** Base name of the generated file in gv/ (also gives the exported constant's name). */
  readonly file: string;
  /** Prefix of the package's schema names, with the trailing dot. */
  readonly schemaPrefix: string;
  /** The input tree and the package's directory inside it. */
  readonly tree: SourceTree;
  readonly dir: string;
  /** False for packages without a protobuf form (version.Info). */
  readonly proto: boolean;
}

function api(group: string, version: string): PackageSpec {
  return {
    file: `${group}-${version}`,
    schemaPrefix: `io.k8s.api.${group}.${version}.`,
    tree: 'api',
    dir: `${group}/${version}`,
    proto: true,
  };
}

/** Every package of the model, in the order of gv/index.ts. */
export const PACKAGE_SPECS: readonly PackageSpec[] = [
  { file: 'meta-v1', schemaPrefix: 'io.k8s.apimachinery.pkg.apis.meta.v1.', tree: 'apimachinery', dir: 'pkg/apis/meta/v1', proto: true },
  { file: 'runtime', schemaPrefix: 'io.k8s.apimachinery.pkg.runtime.', tree: 'apimachinery', dir: 'pkg/runtime', proto: true },
  { file: 'intstr', schemaPrefix: 'io.k8s.apimachinery.pkg.util.intstr.', tree: 'apimachinery', dir: 'pkg/util/intstr', proto: true },
  { file: 'resource', schemaPrefix: 'io.k8s.apimachinery.pkg.api.resource.', tree: 'apimachinery', dir: 'pkg/api/resource', proto: true },
  { file: 'version', schemaPrefix: 'io.k8s.apimachinery.pkg.version.', tree: 'apimachinery', dir: 'pkg/version', proto: false },
  api('admissionregistration', 'v1'),
  api('apps', 'v1'),
  api('authentication', 'v1'),
  api('authorization', 'v1'),
  api('autoscaling', 'v1'),
  api('autoscaling', 'v2'),
  api('batch', 'v1'),
  api('certificates', 'v1'),
  api('coordination', 'v1'),
  api('core', 'v1'),
  api('discovery', 'v1'),
  api('events', 'v1'),
  api('flowcontrol', 'v1'),
  api('networking', 'v1'),
  api('node', 'v1'),
  api('policy', 'v1'),
  api('rbac', 'v1'),
  api('scheduling', 'v1'),
  api('storage', 'v1'),
  {
    file: 'apiextensions-v1',
    schemaPrefix: 'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.',
    tree: 'apiextensions',
    dir: 'pkg/apis/apiextensions/v1',
    proto: true,
  },
  {
    file: 'apiregistration-v1',
    schemaPrefix: 'io.k8s.kube-aggregator.pkg.apis.apiregistration.v1.',
    tree: 'aggregator',
    dir: 'pkg/apis/apiregistration/v1',
    proto: true,
  },
];

/** Go packages read only to resolve the types the model's packages use (types.UID). */
export const GO_ONLY_PACKAGES: readonly { readonly tree: SourceTree; readonly dir: string }[] = [
  { tree: 'apimachinery', dir: 'pkg/types' },
];

/** The Go import path of a package directory in one of the input trees. */
export function importPath(tree: SourceTree, dir: string): string {
  const root = { api: 'k8s.io/api', apimachinery: 'k8s.io/apimachinery', apiextensions: 'k8s.io/apiextensions-apiserver', aggregator: 'k8s.io/kube-aggregator' }[tree];
  return `${root}/${dir}`;
}

/** The protobuf package of a schema prefix: `io.k8s.api.apps.v1.` → `k8s.io.api.apps.v1`. */
export function protoPackageOf(schemaPrefix: string): string {
  const parts = schemaPrefix.replace(/\.$/, '').split('.');
  if (parts[0] !== 'io' || parts[1] !== 'k8s') throw new Error(`not a Kubernetes schema prefix: ${schemaPrefix}`);
  return ['k8s', 'io', ...parts.slice(2)].join('.').replace(/-/g, '_');
}

/** The exported constant's name for a file base name: `core-v1` → `coreV1`. */
export function constName(file: string): string {
  return file.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

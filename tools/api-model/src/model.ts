/** The import run: upstream texts in, generated file texts out (no file system here). */
import type { DraftType } from './draft.js';
import { Problems } from './draft.js';
import { joinGo } from './gofacts.js';
import type { GoPackage } from './goparse.js';
import { newGoPackage, parseGoFile } from './goparse.js';
import { compareWithGeneratedOpenApi } from './oracle.js';
import { renderIndex, renderPackage, type PackageHeader } from './emit.js';
import type { DraftModel } from './join.js';
import { joinProto, splitSchemaName } from './join.js';
import type { PackageSpec } from './packages.js';
import type { ProtoMessage } from './proto.js';
import { parseProto } from './proto.js';
import type { SwaggerDocument } from './swagger.js';
import { compareNames, namedTypeOf, typeOf } from './swagger.js';

/** The upstream inputs of one import, already read. */
export interface ImportInputs {
  readonly swagger: SwaggerDocument;
  /** generated.proto texts by package file name (PackageSpec.file). */
  readonly protos: ReadonlyMap<string, string>;
  /** The Go source texts (non-test .go files) by Go import path. */
  readonly goSources: ReadonlyMap<string, readonly string[]>;
  /** Optional: an OpenAPI Go file kube-openapi generated for the release, to check defaults and enums. */
  readonly generatedOpenApi?: string;
}

/** Builds the model of the given packages; throws listing every problem found. */
export function buildModel(inputs: ImportInputs, specs: readonly PackageSpec[]): DraftModel {
  const problems = new Problems();
  const model: DraftModel = new Map();
  for (const name of Object.keys(inputs.swagger.definitions).sort(compareNames)) {
    const split = splitSchemaName(name, specs);
    if (!split) continue;
    model.set(name, { ...split, type: typeOf(name, inputs.swagger.definitions[name]!, problems) });
  }
  for (const spec of specs) {
    if (![...model.values()].some((e) => e.spec === spec)) problems.add(`package ${spec.file}: no definitions`);
  }
  checkRefs(model, problems);
  problems.throwIfAny('OpenAPI definitions');

  const messages = new Map<string, ProtoMessage>();
  for (const spec of specs) {
    if (!spec.proto) continue;
    const text = inputs.protos.get(spec.file);
    if (text === undefined) {
      problems.add(`package ${spec.file}: no generated.proto`);
      continue;
    }
    for (const m of parseProto(text, `${spec.file}/generated.proto`, problems)) messages.set(m.name, m);
  }
  problems.throwIfAny('protobuf definitions');
  joinProto(model, messages, specs, problems);
  checkRefs(model, problems);
  problems.throwIfAny('protobuf join');

  const universe = new Map<string, GoPackage>();
  for (const [path, texts] of [...inputs.goSources].sort((a, b) => compareNames(a[0], b[0]))) {
    const pkg = newGoPackage();
    texts.forEach((text, i) => parseGoFile(text, pkg, `${path}#${i}`, problems));
    universe.set(path, pkg);
  }
  problems.throwIfAny('Go sources');
  joinGo(model, universe, problems);
  problems.throwIfAny('Go facts');
  checkNoProse(model, problems);
  if (inputs.generatedOpenApi !== undefined) {
    const { compared, problems: disagreements } = compareWithGeneratedOpenApi(inputs.generatedOpenApi, model);
    disagreements.forEach((d) => problems.add(d));
    if (compared === 0) problems.add('the generated OpenAPI file shares no field with the model');
  }
  problems.throwIfAny('model');
  return model;
}

/** Every TypeRef of every field names a type of the model. */
function checkRefs(model: DraftModel, problems: Problems): void {
  for (const [name, { type }] of model) {
    for (const [field, f] of Object.entries(type.fields ?? {})) {
      const ref = namedTypeOf(f.type);
      if (ref !== undefined && !model.has(ref)) problems.add(`${name}.${field}: ${ref} does not resolve`);
    }
    for (const e of type.embedded ?? []) {
      if (!model.has(e.type)) problems.add(`${name}: embedded ${e.type} does not resolve`);
    }
  }
}

/**
 * An enum value may be a few lowercase words (certificates/v1 KeyUsage: `digital signature`);
 * no other string of the model holds a space.
 */
export const ENUM_WORDS = /^[a-z]+( [a-z]+){0,3}$/;

/** No string of the model contains a space (names, keys and values never do, prose always does). */
function checkNoProse(model: DraftModel, problems: Problems): void {
  const walk = (value: unknown, where: string): void => {
    if (typeof value === 'string') {
      const enumValue = /\.enum\[\d+\]$/.test(where) && ENUM_WORDS.test(value);
      if (/\s/.test(value) && !enumValue) problems.add(`${where}: ${JSON.stringify(value.slice(0, 60))} contains a space`);
    } else if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${where}[${i}]`));
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        walk(k, where);
        walk(v, `${where}.${k}`);
      }
    }
  };
  for (const [name, { type }] of model) walk(type, name);
}

/** The group and version a package's header states (none for apimachinery packages). */
export function packageHeader(spec: PackageSpec, model: DraftModel): PackageHeader {
  if (spec.tree === 'apimachinery') return {};
  const groups = new Set<string>();
  const version = spec.dir.split('/').pop()!;
  for (const entry of model.values()) {
    if (entry.spec !== spec) continue;
    for (const g of entry.type.gvk ?? []) if (g.version === version) groups.add(g.group);
  }
  if (groups.size !== 1) throw new Error(`package ${spec.file}: kinds of ${groups.size} groups`);
  return { group: [...groups][0]!, version };
}

/** The generated files: name in gv/ → text. */
export function renderModel(model: DraftModel, specs: readonly PackageSpec[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const spec of specs) {
    const types = new Map<string, DraftType>();
    for (const entry of model.values()) if (entry.spec === spec) types.set(entry.short, entry.type);
    files.set(`${spec.file}.ts`, renderPackage(spec, packageHeader(spec, model), types));
  }
  files.set('index.ts', renderIndex(specs));
  return files;
}

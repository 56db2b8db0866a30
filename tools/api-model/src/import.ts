#!/usr/bin/env node
/**
 * The import CLI: reads Kubernetes' swagger.json and the k8s.io/api, apimachinery,
 * apiextensions-apiserver and kube-aggregator source trees, writes the model's data files. See README.md.
 */
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { buildModel, renderModel, type ImportInputs } from './model.js';
import { GO_ONLY_PACKAGES, PACKAGE_SPECS, importPath, type PackageSpec, type SourceTree } from './packages.js';
import type { SwaggerDocument } from './swagger.js';

/** The OpenAPI Go file kube-openapi generated inside apiextensions-apiserver (checks defaults and enums). */
const GENERATED_OPENAPI = 'pkg/generated/openapi/zz_generated.openapi.go';

const USAGE =
  'usage: import --swagger FILE --api DIR --apimachinery DIR --apiextensions DIR --aggregator DIR [--out DIR]';

/** The Go sources of a package directory that declare its types (tests and generated code left out). */
export function goSourceFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.go') && !f.endsWith('_test.go') && !f.startsWith('zz_generated') && f !== 'generated.pb.go' && !f.endsWith('_swagger_doc_generated.go'))
    .sort();
}

/** Reads the inputs of every package from the given trees. */
export function readInputs(swaggerFile: string, trees: Readonly<Record<SourceTree, string>>, specs: readonly PackageSpec[]): ImportInputs {
  const swagger = JSON.parse(readFileSync(swaggerFile, 'utf8')) as SwaggerDocument;
  const protos = new Map<string, string>();
  const goSources = new Map<string, string[]>();
  for (const spec of specs) {
    const dir = join(trees[spec.tree], spec.dir);
    if (!existsSync(dir)) throw new Error(`package ${spec.file}: ${dir} does not exist`);
    if (spec.proto) protos.set(spec.file, readFileSync(join(dir, 'generated.proto'), 'utf8'));
  }
  for (const { tree, dir } of [...specs, ...GO_ONLY_PACKAGES]) {
    const path = join(trees[tree], dir);
    goSources.set(importPath(tree, dir), goSourceFiles(path).map((f) => readFileSync(join(path, f), 'utf8')));
  }
  const generated = join(trees.apiextensions, GENERATED_OPENAPI);
  if (!existsSync(generated)) return { swagger, protos, goSources };
  return { swagger, protos, goSources, generatedOpenApi: readFileSync(generated, 'utf8') };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      swagger: { type: 'string' },
      api: { type: 'string' },
      apimachinery: { type: 'string' },
      apiextensions: { type: 'string' },
      aggregator: { type: 'string' },
      out: { type: 'string', default: 'packages/api/src/model/gv' },
    },
  });
  if (!values.swagger || !values.api || !values.apimachinery || !values.apiextensions || !values.aggregator) {
    console.error(USAGE);
    process.exit(2);
  }
  const inputs = readInputs(
    values.swagger,
    { api: values.api, apimachinery: values.apimachinery, apiextensions: values.apiextensions, aggregator: values.aggregator },
    PACKAGE_SPECS,
  );
  const files = renderModel(buildModel(inputs, PACKAGE_SPECS), PACKAGE_SPECS);
  const out = resolve(values.out!);
  let changed = 0;
  for (const [name, text] of files) {
    const path = join(out, name);
    if (existsSync(path) && readFileSync(path, 'utf8') === text) continue;
    writeFileSync(path, text);
    changed++;
  }
  console.log(`${files.size} files, ${changed} changed`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  try {
    main();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  }
}

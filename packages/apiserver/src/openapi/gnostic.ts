/**
 * The Swagger 2.0 document as gnostic's openapi.v2 protobuf `Document`, the form kube-apiserver
 * serves for `application/com.github.proto-openapi.spec.v2@v1.0+protobuf` (what kubectl asks
 * for). The mapping is gnostic's: maps become repeated `Named…` pairs in document order, a
 * schema's `type` and `items` become lists, parameters and responses become oneofs of their
 * kinds or a `json_reference`, and values of any JSON type (`default`, `enum`, `example`,
 * `x-…` extensions) become `Any` messages holding the value as YAML text.
 */
import type protobuf from 'protobufjs';
import { createRequire } from 'node:module';
import { OPENAPI_V2_PROTO } from './gnostic-proto.js';

type Obj = Record<string, unknown>;
let yamlLib: typeof import('yaml') | undefined;
/** The YAML library, loaded when the protobuf OpenAPI document is first built or read. */
const yaml = (): typeof import('yaml') => (yamlLib ??= createRequire(import.meta.url)('yaml') as typeof import('yaml'));
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

let root: protobuf.Root | undefined;

/** The protobufjs Root of the openapi.v2 messages (with google.protobuf.Any). */
export function gnosticRoot(): protobuf.Root {
  if (!root) {
    const protobufjs = createRequire(import.meta.url)('protobufjs') as typeof protobuf;
    const r = protobufjs.Root.fromJSON(protobufjs.common.get('google/protobuf/any.proto')!);
    protobufjs.parse(OPENAPI_V2_PROTO, r, { keepCase: true });
    r.resolveAll();
    root = r;
  }
  return root;
}

// ---------------------------------------------------------------- JSON → gnostic

const any = (v: unknown): Obj => ({ yaml: yaml().stringify(v) });
const extensions = (o: Obj): Obj[] => Object.entries(o).filter(([k]) => k.startsWith('x-')).map(([name, v]) => ({ name, value: any(v) }));
const named = <T>(o: unknown, f: (v: unknown) => T): { name: string; value: T }[] => (isObj(o) ? Object.entries(o).map(([name, v]) => ({ name, value: f(v) })) : []);

/** Copies the listed JSON keys to their protobuf names, leaving out absent ones. */
function pick(o: Obj, keys: Record<string, string>): Obj {
  const out: Obj = {};
  for (const [json, pb] of Object.entries(keys)) if (o[json] !== undefined) out[pb] = o[json];
  return out;
}

const VALIDATIONS = {
  maximum: 'maximum', exclusiveMaximum: 'exclusive_maximum', minimum: 'minimum', exclusiveMinimum: 'exclusive_minimum',
  maxLength: 'max_length', minLength: 'min_length', pattern: 'pattern', maxItems: 'max_items', minItems: 'min_items',
  uniqueItems: 'unique_items', multipleOf: 'multiple_of',
};

function schemaToPb(v: unknown): Obj {
  if (!isObj(v)) return {};
  const s = v;
  const out: Obj = pick(s, {
    $ref: '_ref', format: 'format', title: 'title', description: 'description', ...VALIDATIONS,
    maxProperties: 'max_properties', minProperties: 'min_properties', required: 'required', discriminator: 'discriminator', readOnly: 'read_only',
  });
  if (s.default !== undefined) out.default = any(s.default);
  if (Array.isArray(s.enum)) out.enum = s.enum.map(any);
  if (typeof s.additionalProperties === 'boolean') out.additional_properties = { boolean: s.additionalProperties };
  else if (isObj(s.additionalProperties)) out.additional_properties = { schema: schemaToPb(s.additionalProperties) };
  if (s.type !== undefined) out.type = { value: Array.isArray(s.type) ? s.type : [s.type] };
  if (s.items !== undefined) out.items = { schema: (Array.isArray(s.items) ? s.items : [s.items]).map(schemaToPb) };
  if (Array.isArray(s.allOf)) out.all_of = s.allOf.map(schemaToPb);
  if (isObj(s.properties)) out.properties = { additional_properties: named(s.properties, schemaToPb) };
  if (isObj(s.externalDocs)) out.external_docs = { ...pick(s.externalDocs, { description: 'description', url: 'url' }), vendor_extension: extensions(s.externalDocs) };
  if (s.example !== undefined) out.example = any(s.example);
  out.vendor_extension = extensions(s);
  return out;
}

const SUB_SCHEMA: Record<string, string> = {
  header: 'header_parameter_sub_schema',
  formData: 'form_data_parameter_sub_schema',
  query: 'query_parameter_sub_schema',
  path: 'path_parameter_sub_schema',
};

function parameterToPb(p: Obj): Obj {
  if (p.in === 'body') {
    return { body_parameter: { ...pick(p, { description: 'description', name: 'name', in: 'in', required: 'required' }), schema: schemaToPb(p.schema), vendor_extension: extensions(p) } };
  }
  const sub: Obj = {
    ...pick(p, { required: 'required', in: 'in', description: 'description', name: 'name', allowEmptyValue: 'allow_empty_value', type: 'type', format: 'format', collectionFormat: 'collection_format', ...VALIDATIONS }),
    vendor_extension: extensions(p),
  };
  if (p.default !== undefined) sub.default = any(p.default);
  if (Array.isArray(p.enum)) sub.enum = p.enum.map(any);
  return { non_body_parameter: { [SUB_SCHEMA[String(p.in)] ?? 'query_parameter_sub_schema']: sub } };
}

function parametersItemToPb(v: unknown): Obj {
  const p = isObj(v) ? v : {};
  if (typeof p.$ref === 'string') return { json_reference: { _ref: p.$ref } };
  return { parameter: parameterToPb(p) };
}

function responseToPb(v: unknown): Obj {
  const r = isObj(v) ? v : {};
  if (typeof r.$ref === 'string') return { json_reference: { _ref: r.$ref } };
  const out: Obj = { ...pick(r, { description: 'description' }), vendor_extension: extensions(r) };
  if (isObj(r.schema)) out.schema = { schema: schemaToPb(r.schema) };
  return { response: out };
}

function operationToPb(v: unknown): Obj | undefined {
  if (!isObj(v)) return undefined;
  const o = v;
  return {
    ...pick(o, { tags: 'tags', summary: 'summary', description: 'description', operationId: 'operation_id', produces: 'produces', consumes: 'consumes', schemes: 'schemes', deprecated: 'deprecated' }),
    parameters: (Array.isArray(o.parameters) ? o.parameters : []).map(parametersItemToPb),
    responses: { response_code: named(o.responses, responseToPb), vendor_extension: [] },
    vendor_extension: extensions(o),
  };
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function pathItemToPb(v: unknown): Obj {
  const item = isObj(v) ? v : {};
  const out: Obj = { ...pick(item, { $ref: '_ref' }), vendor_extension: extensions(item) };
  for (const m of METHODS) if (isObj(item[m])) out[m] = operationToPb(item[m]);
  out.parameters = (Array.isArray(item.parameters) ? item.parameters : []).map(parametersItemToPb);
  return out;
}

function securityDefinitionToPb(v: unknown): Obj {
  const d = isObj(v) ? v : {};
  const fields = { ...pick(d, { type: 'type', name: 'name', in: 'in', description: 'description' }), vendor_extension: extensions(d) };
  if (d.type === 'basic') return { basic_authentication_security: fields };
  return { api_key_security: fields };
}

/** The gnostic `openapi.v2.Document` (as a plain object with protobuf field names) of a Swagger 2.0 document. */
export function swaggerToGnostic(swagger: object): Obj {
  const d = swagger as Obj;
  const paths = isObj(d.paths) ? d.paths : {};
  return {
    ...pick(d, { swagger: 'swagger', host: 'host', basePath: 'base_path', schemes: 'schemes', consumes: 'consumes', produces: 'produces' }),
    info: isObj(d.info) ? { ...pick(d.info, { title: 'title', version: 'version', description: 'description', termsOfService: 'terms_of_service' }), vendor_extension: extensions(d.info) } : undefined,
    paths: { vendor_extension: extensions(paths), path: Object.entries(paths).filter(([k]) => !k.startsWith('x-')).map(([name, item]) => ({ name, value: pathItemToPb(item) })) },
    definitions: { additional_properties: named(d.definitions, schemaToPb) },
    parameters: { additional_properties: named(d.parameters, (p) => parameterToPb(isObj(p) ? p : {})) },
    security: (Array.isArray(d.security) ? d.security : []).map((req: unknown) => ({ additional_properties: named(req, (scopes) => ({ value: Array.isArray(scopes) ? scopes : [] })) })),
    security_definitions: { additional_properties: named(d.securityDefinitions, securityDefinitionToPb) },
    vendor_extension: extensions(d),
  };
}

/** The protobuf bytes kube-apiserver serves for /openapi/v2 (gnostic's `openapi.v2.Document`). */
export function encodeSwaggerProtobuf(swagger: object): Uint8Array {
  const type = gnosticRoot().lookupType('openapi.v2.Document');
  return type.encode(type.fromObject(swaggerToGnostic(swagger))).finish();
}

// ---------------------------------------------------------------- gnostic → JSON

const fromAny = (a: unknown): unknown => (isObj(a) && typeof a.yaml === 'string' ? yaml().parse(a.yaml) : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** Copies protobuf fields back to their JSON names. */
function unpick(o: Obj, keys: Record<string, string>, out: Obj = {}): Obj {
  for (const [json, pb] of Object.entries(keys)) if (o[pb] !== undefined) out[json] = o[pb];
  return out;
}

function withExtensions(out: Obj, o: Obj): Obj {
  for (const e of list(o.vendor_extension)) if (isObj(e)) out[String(e.name)] = fromAny(e.value);
  return out;
}

function fromNamed<T>(v: unknown, f: (x: unknown) => T): Record<string, T> {
  const out: Record<string, T> = {};
  for (const e of list(v)) if (isObj(e)) out[String(e.name)] = f(e.value);
  return out;
}

function schemaFromPb(v: unknown): Obj {
  const s = isObj(v) ? v : {};
  const out = unpick(s, {
    $ref: '_ref', format: 'format', title: 'title', description: 'description', ...VALIDATIONS,
    maxProperties: 'max_properties', minProperties: 'min_properties', discriminator: 'discriminator', readOnly: 'read_only',
  });
  if (list(s.required).length) out.required = s.required;
  if (s.default !== undefined) out.default = fromAny(s.default);
  if (list(s.enum).length) out.enum = list(s.enum).map(fromAny);
  const ap = isObj(s.additional_properties) ? s.additional_properties : undefined;
  if (ap) out.additionalProperties = ap.schema !== undefined ? schemaFromPb(ap.schema) : ap.boolean === true;
  if (isObj(s.type)) {
    const t = list(s.type.value);
    out.type = t.length === 1 ? t[0] : t;
  }
  if (isObj(s.items)) {
    const items = list(s.items.schema).map(schemaFromPb);
    out.items = items.length === 1 ? items[0] : items;
  }
  if (list(s.all_of).length) out.allOf = list(s.all_of).map(schemaFromPb);
  if (isObj(s.properties)) out.properties = fromNamed(s.properties.additional_properties, schemaFromPb);
  if (s.example !== undefined) out.example = fromAny(s.example);
  return withExtensions(out, s);
}

function parameterFromPb(v: unknown): Obj {
  const p = isObj(v) ? v : {};
  if (isObj(p.body_parameter)) {
    const b = p.body_parameter;
    const out = unpick(b, { description: 'description', in: 'in', name: 'name', required: 'required' });
    out.schema = schemaFromPb(b.schema);
    return withExtensions(out, b);
  }
  const nb = isObj(p.non_body_parameter) ? p.non_body_parameter : {};
  const sub = Object.values(nb).find(isObj) ?? {};
  const out = unpick(sub, { description: 'description', in: 'in', name: 'name', required: 'required', allowEmptyValue: 'allow_empty_value', type: 'type', format: 'format', collectionFormat: 'collection_format', ...VALIDATIONS });
  if (sub.default !== undefined) out.default = fromAny(sub.default);
  if (list(sub.enum).length) out.enum = list(sub.enum).map(fromAny);
  return withExtensions(out, sub);
}

function parametersItemFromPb(v: unknown): Obj {
  const p = isObj(v) ? v : {};
  if (isObj(p.json_reference)) return { $ref: p.json_reference._ref };
  return parameterFromPb(p.parameter);
}

function operationFromPb(v: unknown): Obj {
  const o = isObj(v) ? v : {};
  const out = unpick(o, { consumes: 'consumes', deprecated: 'deprecated', description: 'description', operationId: 'operation_id', produces: 'produces', schemes: 'schemes', summary: 'summary', tags: 'tags' });
  if (list(o.parameters).length) out.parameters = list(o.parameters).map(parametersItemFromPb);
  out.responses = fromNamed(isObj(o.responses) ? o.responses.response_code : [], (r) => {
    const rv = isObj(r) ? r : {};
    if (isObj(rv.json_reference)) return { $ref: rv.json_reference._ref };
    const resp = isObj(rv.response) ? rv.response : {};
    const out2 = unpick(resp, { description: 'description' });
    if (isObj(resp.schema) && isObj(resp.schema.schema)) out2.schema = schemaFromPb(resp.schema.schema);
    return withExtensions(out2, resp);
  });
  return withExtensions(out, o);
}

/** The Swagger 2.0 JSON of a decoded gnostic `openapi.v2.Document` (read with protobuf field names). */
export function gnosticToSwagger(doc: Obj): Obj {
  const paths: Obj = {};
  for (const e of list(isObj(doc.paths) ? doc.paths.path : [])) {
    if (!isObj(e)) continue;
    const item = isObj(e.value) ? e.value : {};
    const out: Obj = unpick(item, { $ref: '_ref' });
    for (const m of METHODS) if (isObj(item[m])) out[m] = operationFromPb(item[m]);
    if (list(item.parameters).length) out.parameters = list(item.parameters).map(parametersItemFromPb);
    paths[String(e.name)] = withExtensions(out, item);
  }
  const out: Obj = unpick(doc, { swagger: 'swagger', host: 'host', basePath: 'base_path', schemes: 'schemes', consumes: 'consumes', produces: 'produces' });
  if (isObj(doc.info)) out.info = withExtensions(unpick(doc.info, { title: 'title', version: 'version', description: 'description' }), doc.info);
  out.paths = paths;
  out.definitions = fromNamed(isObj(doc.definitions) ? doc.definitions.additional_properties : [], schemaFromPb);
  out.parameters = fromNamed(isObj(doc.parameters) ? doc.parameters.additional_properties : [], parameterFromPb);
  out.securityDefinitions = fromNamed(isObj(doc.security_definitions) ? doc.security_definitions.additional_properties : [], (d) => {
    const item = isObj(d) ? d : {};
    const sec = Object.values(item).find(isObj) ?? {};
    return withExtensions(unpick(sec, { description: 'description', in: 'in', name: 'name', type: 'type' }), sec);
  });
  out.security = list(doc.security).map((req) => fromNamed(isObj(req) ? req.additional_properties : [], (a) => list(isObj(a) ? a.value : [])));
  return withExtensions(out, doc);
}

/** Decodes gnostic protobuf bytes back to Swagger 2.0 JSON. */
export function decodeSwaggerProtobuf(bytes: Uint8Array): Obj {
  const type = gnosticRoot().lookupType('openapi.v2.Document');
  return gnosticToSwagger(type.toObject(type.decode(bytes), { longs: Number, arrays: false, defaults: false }) as Obj);
}

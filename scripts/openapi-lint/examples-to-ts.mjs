// Writes every example openapi.json gives as a TypeScript const that must satisfy the type
// openapi-typescript generated for the same place, so that `tsc --strict --noEmit` checks the
// examples against the types a TypeScript client gets (scripts/openapi-lint.sh runs both).
//
// Usage: node examples-to-ts.mjs OPENAPI_JSON TYPES_MODULE OUT_TS
//   TYPES_MODULE: the generated types as imported from OUT_TS, e.g. "./openapi"
//
// Examples are found wherever the document may carry them: a schema's `example` and `examples`
// (at any depth under `properties`, `items` or `additionalProperties`), a media type's `example`
// and `examples` (request and response bodies), and a parameter's. Each const is a literal with
// `satisfies`, so an object literal is also checked for properties its type does not have. Each
// const's name and the comment above it say where the example is. An example at a place this
// script cannot name a type for (say, inside one branch of a `oneOf`) stops it, rather than going
// unchecked.

import { readFileSync, writeFileSync } from "node:fs";

const [documentPath, typesModule, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: examples-to-ts.mjs OPENAPI_JSON TYPES_MODULE OUT_TS");
  process.exit(2);
}
const document = JSON.parse(readFileSync(documentPath, "utf8"));
const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

const out = [];
const names = new Set();
const unplaced = [];
let count = 0;

const index = (type, key) => `${type}[${JSON.stringify(String(key))}]`;
// Optional members (a body, a parameter group, a property) are `T | undefined`, and nullable
// schemas `T | null`; only the defined value has members to index.
const member = (type, key) => index(`NonNullable<${type}>`, key);
// A path segment is a key, or {pointer, name} where the const's name says it better than the
// JSON pointer does (a parameter's place and name rather than its index).
const pointer = (path) =>
  "#/" +
  path.map((p) => String(p.pointer ?? p).replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

const referenced = new Set();
function resolve(object) {
  // Local references only: the document is a single file.
  if (object && typeof object.$ref === "string" && object.$ref.startsWith("#/")) {
    referenced.add(object.$ref);
    return object.$ref
      .slice(2)
      .split("/")
      .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"))
      .reduce((node, key) => node[key], document);
  }
  return object;
}

function emit(path, type, value) {
  let name = path
    .map((p) => p.name ?? p)
    .join("_")
    .replace(/[^A-Za-z0-9_]+/g, "_")
    .replace(/_+/g, "_")
    .replace(/^_|_$/g, "");
  if (/^[0-9]/.test(name)) name = "_" + name;
  for (let n = 2; names.has(name); n++) name = `${name.replace(/_dup\d+$/, "")}_dup${n}`;
  names.add(name);
  out.push(`// ${pointer(path)}`);
  out.push(`export const ${name} = ${JSON.stringify(value, null, 2)} satisfies ${type};`);
  out.push("");
  count++;
}

// A schema's own examples, then those of the schemas under it that have a type of their own.
function schemaExamples(schema, path, type) {
  if (!schema || typeof schema !== "object") return;
  if ("example" in schema) emit([...path, "example"], type, schema.example);
  if (Array.isArray(schema.examples)) {
    schema.examples.forEach((value, i) => emit([...path, "examples", i], type, value));
  } else if ("examples" in schema) {
    unplaced.push(`${pointer([...path, "examples"])} (a schema's examples are a list)`);
  }
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    schemaExamples(sub, [...path, "properties", key], member(type, key));
  }
  if (schema.items && typeof schema.items === "object" && !Array.isArray(schema.items)) {
    schemaExamples(schema.items, [...path, "items"], `NonNullable<${type}>[number]`);
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === "object") {
    schemaExamples(
      schema.additionalProperties,
      [...path, "additionalProperties"],
      `NonNullable<${type}>[string]`,
    );
  }
  // Composition branches and the like have no generated type of their own to check against.
  for (const key of ["allOf", "oneOf", "anyOf", "not", "prefixItems", "if", "then", "else"]) {
    const branches = schema[key] === undefined ? [] : [].concat(schema[key]);
    branches.forEach((branch, i) => findUnplaced(branch, [...path, key, i]));
  }
}

// Records any example under a node whose type cannot be named, so that the script fails.
function findUnplaced(node, path) {
  if (!node || typeof node !== "object") return;
  for (const [key, value] of Object.entries(node)) {
    if (key === "example" || key === "examples") unplaced.push(pointer([...path, key]));
    else findUnplaced(value, [...path, key]);
  }
}

// `examples` of a media type or parameter: a map of Example objects (or references to them).
function exampleMap(examples, path, type) {
  for (const [key, example] of Object.entries(examples ?? {})) {
    const resolved = resolve(example);
    if ("value" in resolved) emit([...path, key], type, resolved.value);
    else unplaced.push(`${pointer([...path, key])} (no inline value)`);
  }
}

function content(mediaTypes, path, type) {
  for (const [mediaType, media] of Object.entries(mediaTypes ?? {})) {
    const mediaPath = [...path, mediaType];
    const mediaTypeType = member(type, mediaType);
    if ("example" in media) emit([...mediaPath, "example"], mediaTypeType, media.example);
    exampleMap(media.examples, [...mediaPath, "examples"], mediaTypeType);
    schemaExamples(media.schema, [...mediaPath, "schema"], mediaTypeType);
  }
}

function parameter(param, path, groupType) {
  if (param.$ref) return; // its examples are checked where it is declared, in components
  const type = member(member(groupType, param.in), param.name);
  path = [...path.slice(0, -1), { pointer: path.at(-1), name: `${param.in}_${param.name}` }];
  if ("example" in param) emit([...path, "example"], type, param.example);
  exampleMap(param.examples, [...path, "examples"], type);
  schemaExamples(param.schema, [...path, "schema"], type);
  if (param.content) findUnplaced(param.content, [...path, "content"]);
}

const components = document.components ?? {};
for (const [name, schema] of Object.entries(components.schemas ?? {})) {
  schemaExamples(schema, ["components", "schemas", name], index(`components["schemas"]`, name));
}
for (const [name, param] of Object.entries(components.parameters ?? {})) {
  const type = index(`components["parameters"]`, name);
  const path = ["components", "parameters", name];
  if ("example" in param) emit([...path, "example"], type, param.example);
  exampleMap(param.examples, [...path, "examples"], type);
  schemaExamples(param.schema, [...path, "schema"], type);
}
for (const [name, body] of Object.entries(components.requestBodies ?? {})) {
  const type = index(`components["requestBodies"]`, name);
  content(body.content, ["components", "requestBodies", name, "content"], `${type}["content"]`);
}
for (const [name, response] of Object.entries(components.responses ?? {})) {
  const type = index(`components["responses"]`, name);
  content(response.content, ["components", "responses", name, "content"], `${type}["content"]`);
  if (response.headers) {
    findUnplaced(response.headers, ["components", "responses", name, "headers"]);
  }
}
for (const key of ["headers", "callbacks", "pathItems"]) {
  if (components[key]) findUnplaced(components[key], ["components", key]);
}

for (const [route, item] of Object.entries(document.paths ?? {})) {
  const itemType = index("paths", route);
  (item.parameters ?? []).forEach((param, i) =>
    parameter(param, ["paths", route, "parameters", i], `${itemType}["parameters"]`),
  );
  for (const method of METHODS) {
    const operation = item[method];
    if (!operation) continue;
    const opType = index(itemType, method);
    const path = ["paths", route, method];
    (operation.parameters ?? []).forEach((param, i) =>
      parameter(param, [...path, "parameters", i], `${opType}["parameters"]`),
    );
    if (operation.requestBody && !operation.requestBody.$ref) {
      const bodyType = `${member(opType, "requestBody")}["content"]`;
      content(operation.requestBody.content, [...path, "requestBody", "content"], bodyType);
    }
    for (const [status, response] of Object.entries(operation.responses ?? {})) {
      if (response.$ref) continue; // checked in components
      const responseType = index(`${opType}["responses"]`, status);
      const responsePath = [...path, "responses", status];
      content(response.content, [...responsePath, "content"], `${responseType}["content"]`);
      if (response.headers) findUnplaced(response.headers, [...responsePath, "headers"]);
    }
    if (operation.callbacks) findUnplaced(operation.callbacks, [...path, "callbacks"]);
  }
}
if (document.webhooks) findUnplaced(document.webhooks, ["webhooks"]);
// Example objects in components are checked where a media type or parameter uses them, as that
// place's type; one that nothing uses has no type.
for (const name of Object.keys(components.examples ?? {})) {
  const ref = pointer(["components", "examples", name]);
  if (!referenced.has(ref)) unplaced.push(`${ref} (used nowhere)`);
}

if (unplaced.length) {
  console.error("examples with no generated type to check them against:");
  for (const place of unplaced) console.error(`  ${place}`);
  process.exit(1);
}
writeFileSync(
  outPath,
  `// Generated by scripts/openapi-lint/examples-to-ts.mjs from ${documentPath}: do not edit.\n` +
    `import type { components, paths } from ${JSON.stringify(typesModule)};\n\n` +
    out.join("\n"),
);
console.log(`examples-to-ts: ${count} examples written to ${outPath}`);

#!/usr/bin/env node
// The web half of `make generate`. grpc-gateway's protoc-gen-openapiv2 only writes
// Swagger 2.0 (<repo>/gen/openapi); current openapi-typescript and openapi-fetch read
// OpenAPI 3. So, per document:
//   gen/openapi/<p>.swagger.json  --swagger2openapi-->  gen/openapi3/<p>.openapi.json
//   gen/openapi3/<p>.openapi.json --openapi-typescript-> web/libs/api-client/src/generated/<p>.ts
// Between the two, publish() applies proto/openapi.contract.json: what the wire does that
// proto cannot say (the error object of internal/platform/errs instead of grpc-gateway's
// rpcStatus, the routes' own refusal shapes, fields always present, form bodies, the routes
// served by plain handlers). internal/platform/contracttest checks the result against the
// wire in make test. Both outputs are committed. Deterministic: inputs in sorted order,
// stable JSON, no timestamps.
//
//   node generate.mjs           regenerate gen/openapi3/ and src/generated/
//   node generate.mjs --check   exit 1 when either differs from a fresh run
import { readFile, writeFile, mkdir, readdir, rm } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import openapiTS, { astToString } from 'openapi-typescript';

const require = createRequire(import.meta.url);
const swagger2openapi = require('swagger2openapi');

const here = dirname(fileURLToPath(import.meta.url));
const libRoot = resolve(here, '..');
const repoRoot = resolve(libRoot, '../../..');
const tsRoot = join(libRoot, 'src/generated');
const inRoot = resolve(process.env.HANGAR_OPENAPI_DIR ?? join(repoRoot, 'gen/openapi'));
const v3Root = resolve(process.env.HANGAR_OPENAPI3_DIR ?? join(repoRoot, 'gen/openapi3'));
const check = process.argv.includes('--check');
const contract = JSON.parse(await readFile(join(repoRoot, 'proto/openapi.contract.json'), 'utf8'));

async function walk(dir, suffix) {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    if (err.code === 'ENOENT') return [];
    throw err;
  }
  const files = [];
  for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) files.push(...(await walk(p, suffix)));
    else if (e.name.endsWith(suffix)) files.push(p);
  }
  return files;
}

const toPosix = (p) => p.split(sep).join('/');

async function toOpenAPI3(swagger) {
  // patch: fix the small Swagger 2 oddities grpc-gateway emits instead of failing on them.
  const { openapi } = await swagger2openapi.convertObj(swagger, { patch: true, warnOnly: true, resolve: false });
  return openapi;
}

const ERROR = 'hangarError';
const FIELD_ERROR = 'hangarFieldError';
const errorRef = { $ref: `#/components/schemas/${ERROR}` };
const json = (schema) => ({ 'application/json': { schema } });

function errorSchemas() {
  return {
    [ERROR]: {
      type: 'object',
      description:
        'The one error object of every public route (internal/platform/errs.Body), answered with the HTTP status of its code: invalid_argument 400, unauthenticated 401, payment_declined 402, permission_denied 403, not_found 404, method_not_allowed 405, conflict 409, failed_precondition 412, payload_too_large 413, resource_exhausted 429 (with Retry-After), internal 500, unavailable 503 (with Retry-After). The spec\'s refusal fields (status, errors, msg, requireLogin, the fresh preview of a changed quote) are part of the same object.',
      required: ['code', 'message', 'reason', 'status', 'errors', 'msg'],
      properties: {
        code: { type: 'string', enum: contract.errorCodes, description: 'The class of the failure, one of a small stable set; clients branch on it.' },
        message: { type: 'string', description: 'A plain message safe to show; a validation failure names the field.' },
        reason: { type: 'string', description: 'The refusal named more finely, UPPER_SNAKE_CASE: QUOTE_CHANGED, PAYMENT_DECLINED, IDEMPOTENCY_KEY_REUSED, CURRENCY_NOT_ALLOWED_FOR_ACCOUNT, else the code itself (NOT_FOUND).' },
        status: { type: 'string', enum: ['fail'], description: 'Always "fail" (the spec\'s refusal answers).' },
        errors: { type: 'array', items: { type: 'string' }, description: 'Every problem found, else the field messages, else the message alone.' },
        msg: { type: 'string', description: 'The message again (the login answer\'s {status, msg} of spec 000 §7).' },
        fieldErrors: { type: 'array', items: { $ref: `#/components/schemas/${FIELD_ERROR}` }, description: 'One entry per invalid input field (invalid_argument).' },
        requireLogin: { type: 'boolean', description: 'The caller must log in first (unauthenticated).' },
        preview: { type: 'object', description: 'On QUOTE_CHANGED: the fresh invoice preview (PreviewInvoiceResponse) to show before paying again.' },
      },
    },
    [FIELD_ERROR]: {
      type: 'object',
      required: ['field', 'message'],
      properties: { field: { type: 'string', description: 'The JSON name of the field.' }, message: { type: 'string' } },
    },
  };
}

/** publish makes doc (the OpenAPI 3 document rel) say what the wire does. */
function publish(doc, rel) {
  const schemas = (doc.components ??= {}).schemas ??= {};
  delete schemas.rpcStatus;
  delete schemas.protobufAny;
  Object.assign(schemas, errorSchemas());
  for (const [name, fields] of Object.entries(contract.required)) {
    if (schemas[name]) schemas[name].required = [...fields];
  }
  const form = contract.formBodies.includes(rel);
  for (const ops of Object.values(doc.paths)) {
    for (const op of Object.values(ops)) {
      op.responses.default = { description: 'An error: the error object with the HTTP status of its code.', content: json(errorRef) };
      const failure = contract.failures[op.operationId];
      if (failure) {
        const name = `${failure.schema}Failure`;
        schemas[name] = {
          description: `A refusal answered with ${failure.schema}'s fields (the page reads them) besides the error object's.`,
          allOf: [{ $ref: `#/components/schemas/${failure.schema}` }, { type: 'object', required: failure.required }],
        };
        for (const st of failure.statuses) {
          op.responses[st] = { description: 'A refusal: the route\'s own failure answer, or the error object.', content: json({ anyOf: [{ $ref: `#/components/schemas/${name}` }, errorRef] }) };
        }
      }
      // grpc-gateway reads an empty body as the empty message (logout posts none).
      if (op.requestBody) op.requestBody = { ...resolveBody(doc, op.requestBody), required: false };
      if (form) addForm(op);
    }
  }
  delete doc.components.requestBodies;
  for (const path of contract.slashTwins[rel] ?? []) {
    if (!doc.paths[path]) throw new Error(`proto/openapi.contract.json: slashTwins names ${path}, which ${rel} does not have`);
    const twin = structuredClone(doc.paths[path]);
    for (const op of Object.values(twin)) op.operationId += '_Slash';
    doc.paths[`${path}/`] = twin;
  }
  // Routes served by plain handlers, not the gateway.
  const extra = contract.paths[rel];
  if (extra) {
    Object.assign(schemas, structuredClone(extra.schemas));
    for (const [path, ops] of Object.entries(extra.routes)) {
      doc.paths[path] ??= {};
      for (const [method, op] of Object.entries(ops)) {
        // responses: statuses other than 200 (a redirect); without ok or okContent the
        // route has no 200.
        const { ok, okContent, responses, ...rest } = structuredClone(op);
        doc.paths[path][method] = {
          ...rest,
          responses: {
            ...(ok || okContent ? { 200: { description: 'A successful response.', content: okContent ?? json({ $ref: `#/components/schemas/${ok}` }) } } : {}),
            ...responses,
            default: { description: 'An error: the error object with the HTTP status of its code.', content: json(errorRef) },
          },
        };
      }
    }
  }
  return doc;
}

function resolveBody(doc, body) {
  return body.$ref ? structuredClone(doc.components.requestBodies[body.$ref.split('/').pop()]) : body;
}

// addForm documents the form-encoded twin of a JSON request body.
function addForm(op) {
  const schema = op.requestBody?.content?.['application/json']?.schema;
  if (schema) op.requestBody.content['application/x-www-form-urlencoded'] = { schema: structuredClone(schema) };
}

async function renderTs(doc, source) {
  const ast = await openapiTS(doc, { alphabetize: true });
  return `// Code generated by libs/api-client/scripts/generate.mjs from ${source}. DO NOT EDIT.\n// Regenerate with: make generate (repository root)\n\n${astToString(ast).trimEnd()}\n`;
}

const inputs = await walk(inRoot, '.swagger.json');
if (inputs.length === 0) {
  console.error(`gen:api: no *.swagger.json under ${inRoot} (run \`make generate\` at the repository root)`);
  process.exit(1);
}

/** Output root -> (relative path -> text). */
const wanted = new Map([
  [v3Root, new Map()],
  [tsRoot, new Map()],
]);
for (const file of inputs) {
  const rel = toPosix(relative(inRoot, file)).replace(/\.swagger\.json$/, '');
  const v3 = publish(await toOpenAPI3(JSON.parse(await readFile(file, 'utf8'))), rel);
  const v3Text = `${JSON.stringify(v3, null, 2)}\n`;
  wanted.get(v3Root).set(`${rel}.openapi.json`, v3Text);
  wanted.get(tsRoot).set(`${rel}.ts`, await renderTs(v3, toPosix(relative(repoRoot, join(v3Root, `${rel}.openapi.json`)))));
}

const drift = [];
for (const [root, files] of wanted) {
  const suffix = root === tsRoot ? '.ts' : '.openapi.json';
  for (const [rel, text] of files) {
    const target = join(root, rel);
    let current = null;
    try {
      current = await readFile(target, 'utf8');
    } catch {
      /* missing */
    }
    if (current === text) continue;
    drift.push(`${current === null ? 'missing' : 'changed'} ${toPosix(relative(repoRoot, target))}`);
    if (!check) {
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, text);
    }
  }
  for (const f of await walk(root, suffix)) {
    const rel = toPosix(relative(root, f));
    if (files.has(rel)) continue;
    drift.push(`stale ${toPosix(relative(repoRoot, f))}`);
    if (!check) await rm(f);
  }
}

if (check) {
  if (drift.length > 0) {
    console.error(`gen:api: generated API documents/types are out of date with ${toPosix(relative(repoRoot, inRoot))}:\n  ${drift.join('\n  ')}\nRun \`make generate\` and commit the result.`);
    process.exit(1);
  }
  console.log(`gen:api: ${inputs.length} document(s) up to date (OpenAPI 3 + TypeScript)`);
} else {
  console.log(`gen:api: ${inputs.length} document(s), ${drift.length} file(s) written or removed`);
}

// Validates every YAML document under deploy/kubernetes/ against the Kubernetes OpenAPI schema of its
// kind, offline, with the validators kubernetes-models generates from that schema:
//   - types, enums, formats and required fields: the kind's compiled validator;
//   - unknown fields, which an API server with strict field validation (kubectl's default) rejects and
//     the OpenAPI schema alone allows: a compiled validator reads every field its schema defines, so a
//     field it never reads (seen through a Proxy) is unknown.
// A file named *-patch.yaml is a strategic-merge patch, not a whole object: it is checked the same way
// except for required fields, which the patched object supplies. What a patch cannot be checked for
// offline: that the object it names exists, and that its list entries (containers, volumes by name)
// merge into the target's as intended.
//
//   node validate.mjs [DIR]        DIR defaults to deploy/kubernetes; exit status 1 on any error
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseAllDocuments } from "yaml";

const HERE = dirname(fileURLToPath(import.meta.url));

/** The kubernetes-models schema module of apiVersion + kind, e.g. apps/v1 DaemonSet: IoK8sApiAppsV1DaemonSet. */
export function schemaName(apiVersion, kind) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["core", apiVersion];
  const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);
  return `IoK8sApi${capital(group.split(".")[0])}${capital(version)}${kind}`;
}

async function validatorOf(apiVersion, kind) {
  try {
    const module = await import(`kubernetes-models/_schemas/${schemaName(apiVersion, kind)}`);
    return module.validate;
  } catch (e) {
    if (e.code === "ERR_MODULE_NOT_FOUND" || e.code === "ERR_PACKAGE_PATH_NOT_EXPORTED") {
      return null;
    }
    throw e;
  }
}

/** A deep view of value whose property reads are recorded in `read` as JSON pointers. */
function watched(value, pointer, read) {
  if (value === null || typeof value !== "object") {
    return value;
  }
  return new Proxy(value, {
    get(target, key, receiver) {
      const child = Reflect.get(target, key, receiver);
      if (typeof key !== "string" || !Object.hasOwn(target, key)) {
        return child;
      }
      const path = `${pointer}/${key}`;
      read.add(path);
      return watched(child, path, read);
    },
  });
}

/** JSON pointers of the fields of value that are not in `read`. */
function unread(value, pointer, read, found = []) {
  if (value === null || typeof value !== "object") {
    return found;
  }
  for (const [key, child] of Object.entries(value)) {
    const path = `${pointer}/${key}`;
    if (!read.has(path)) {
      found.push(path);
    } else {
      unread(child, path, read, found);
    }
  }
  return found;
}

/** Errors of one object against the schema of its kind, as "pointer: message" lines. */
export async function validateObject(object, { patch = false } = {}) {
  if (object === null || typeof object !== "object" || Array.isArray(object)) {
    return ["document is not a mapping"];
  }
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== "string" || typeof kind !== "string") {
    return ["apiVersion and kind must be strings"];
  }
  const validate = await validatorOf(apiVersion, kind);
  if (validate === null) {
    return [`no schema for ${apiVersion} ${kind} (kubernetes-models has ${schemaName(apiVersion, kind)} for built-in kinds only)`];
  }
  const read = new Set();
  validate(watched(object, "", read));
  const errors = (validate.errors ?? [])
    .filter((e) => !(patch && e.keyword === "required"))
    .map((e) => `${e.instancePath || "/"}: ${describe(e)}`);
  for (const path of unread(object, "", read)) {
    errors.push(`${path}: unknown field`);
  }
  return [...new Set(errors)];
}

function describe(error) {
  switch (error.keyword) {
    case "required":
      return `missing required field ${error.params.missingProperty}`;
    case "type":
      return `must be ${error.params.type}`;
    case "enum":
      return `must be one of ${error.params.allowedValues.join(", ")}`;
    default:
      return `${error.keyword} ${JSON.stringify(error.params)}`;
  }
}

function yamlFiles(dir) {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      return name === "node_modules" ? [] : yamlFiles(path);
    }
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

/** Validates every document of every YAML file under dir; returns {objects, errors} with errors per file. */
export async function validateDirectory(dir) {
  const errors = [];
  const objects = [];
  for (const file of yamlFiles(dir)) {
    const name = relative(dir, file);
    const patch = file.endsWith("-patch.yaml");
    const documents = parseAllDocuments(readFileSync(file, "utf8"), { uniqueKeys: true, strict: true });
    for (const [index, document] of documents.entries()) {
      const where = `${name}#${index}`;
      if (document.errors.length > 0) {
        errors.push(...document.errors.map((e) => `${where}: YAML: ${e.message}`));
        continue;
      }
      const object = document.toJS();
      if (object === null) {
        continue;
      }
      objects.push({ where, kind: object.kind, patch });
      errors.push(...(await validateObject(object, { patch })).map((e) => `${where} ${object.kind ?? ""}${e.startsWith("/") ? " " : ": "}${e}`));
    }
  }
  return { objects, errors };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const dir = resolve(process.argv[2] ?? join(HERE, ".."));
  const started = Date.now();
  const { objects, errors } = await validateDirectory(dir);
  for (const o of objects) {
    console.log(`${o.where} ${o.kind}${o.patch ? " (strategic-merge patch: required fields not checked)" : ""}`);
  }
  for (const e of errors) {
    console.error(`ERROR ${e}`);
  }
  console.log(`${objects.length} objects under ${dir}, ${errors.length} errors, ${Date.now() - started} ms`);
  if (objects.length === 0 || errors.length > 0) {
    process.exit(1);
  }
}

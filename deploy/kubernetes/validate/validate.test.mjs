// The validator passes the committed manifests and fails broken copies of them: a wrong field type, an
// unknown field, a missing required field, each in a whole object and (but the last) in the Trino patch.
//   node --test validate.test.mjs
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";
import { validateDirectory } from "./validate.mjs";

const MANIFESTS = join(dirname(fileURLToPath(import.meta.url)), "..");
const copies = [];
after(() => copies.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A copy of deploy/kubernetes with `from` replaced by `to` in one file (which must contain `from` once). */
function brokenCopy(file, from, to) {
  const dir = mkdtempSync(join(tmpdir(), "rubix-k8s-"));
  copies.push(dir);
  cpSync(MANIFESTS, dir, { recursive: true, filter: (src) => !src.includes("node_modules") });
  const path = join(dir, file);
  const text = readFileSync(path, "utf8");
  assert.equal(text.split(from).length, 2, `${file} contains ${JSON.stringify(from)} once`);
  writeFileSync(path, text.replace(from, to));
  return dir;
}

test("the committed manifests are valid, the Trino patch as a patch", async () => {
  const { objects, errors } = await validateDirectory(MANIFESTS);
  assert.deepEqual(errors, []);
  assert.deepEqual(objects.map((o) => `${o.kind}${o.patch ? " patch" : ""}`).sort(),
    ["ConfigMap", "DaemonSet", "Deployment patch", "Namespace", "Pod", "PodDisruptionBudget"]);
});

const broken = [
  ["wrong type: a port as a string", "daemonset.yaml", "containerPort: 8899", 'containerPort: "8899"',
    "daemonset.yaml#0 DaemonSet /spec/template/spec/containers/0/ports/0/containerPort: must be integer"],
  ["wrong type: hostNetwork as a string", "daemonset.yaml", "hostNetwork: true", 'hostNetwork: "yes"',
    "daemonset.yaml#0 DaemonSet /spec/template/spec/hostNetwork: must be boolean"],
  ["unknown field: a misspelt key", "daemonset.yaml", "readOnlyRootFilesystem: true", "readOnlyRootFileSystem: true",
    "daemonset.yaml#0 DaemonSet /spec/template/spec/containers/0/securityContext/readOnlyRootFileSystem: unknown field"],
  ["unknown field at the top", "poddisruptionbudget.yaml", "spec:\n", "specs: {}\nspec:\n",
    "poddisruptionbudget.yaml#0 PodDisruptionBudget /specs: unknown field"],
  ["missing required field: a container's name", "spark/executor-pod-template.yaml", "- name: spark-kubernetes-executor\n      env:",
    "- env:", "spark/executor-pod-template.yaml#0 Pod /spec/containers/0: missing required field name"],
  ["missing required field: the DaemonSet's selector", "daemonset.yaml", "  selector:\n    matchLabels:\n      app.kubernetes.io/name: rubix-bookkeeper\n  updateStrategy",
    "  updateStrategy", "daemonset.yaml#0 DaemonSet /spec: missing required field selector"],
  ["enum: an unknown hostPath type in the patch", "trino/worker-pod-patch.yaml", "type: Directory", "type: Folder",
    "trino/worker-pod-patch.yaml#0 Deployment /spec/template/spec/volumes/0/hostPath/type: must be one of"],
  ["unknown field in the patch", "trino/worker-pod-patch.yaml", "readOnly: true", "readonly: true",
    "trino/worker-pod-patch.yaml#0 Deployment /spec/template/spec/containers/0/volumeMounts/1/readonly: unknown field"],
  ["wrong type in the patch", "trino/worker-pod-patch.yaml", "supplementalGroups: [1899]", "supplementalGroups: 1899",
    "trino/worker-pod-patch.yaml#0 Deployment /spec/template/spec/securityContext/supplementalGroups: must be array"],
  ["a misspelt kind", "daemonset.yaml", "kind: DaemonSet", "kind: DaemonSett",
    "daemonset.yaml#0 DaemonSett: no schema for apps/v1 DaemonSett"],
  ["a duplicate key", "configmap.yaml", "  name: rubix-bookkeeper\n", "  name: rubix-bookkeeper\n  name: rubix\n",
    "configmap.yaml#0: YAML: Map keys must be unique"],
];

for (const [name, file, from, to, expected] of broken) {
  test(`fails ${name}`, async () => {
    const { errors } = await validateDirectory(brokenCopy(file, from, to));
    assert.ok(errors.length > 0, "no error");
    assert.ok(errors.some((e) => e.startsWith(expected)), `expected "${expected}..." in\n${errors.join("\n")}`);
  });
}

test("a required field left out of the patch is not an error, but is in a whole object", async () => {
  // the patch has no spec.selector and no container image: the target Deployment has them
  const { errors } = await validateDirectory(MANIFESTS);
  assert.ok(!errors.some((e) => e.includes("worker-pod-patch")));
  const dir = brokenCopy("trino/worker-pod-patch.yaml", "worker-pod-patch.yaml", "worker-pod-patch.yaml");
  writeFileSync(join(dir, "trino/worker-deployment.yaml"), readFileSync(join(dir, "trino/worker-pod-patch.yaml")));
  const whole = await validateDirectory(dir);
  assert.ok(whole.errors.includes("trino/worker-deployment.yaml#0 Deployment /spec: missing required field selector"), whole.errors.join("\n"));
});

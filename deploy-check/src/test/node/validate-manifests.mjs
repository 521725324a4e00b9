// Validates Kubernetes manifests offline against the OpenAPI schemas bundled in kubernetes-models (Kubernetes 1.27)
// and, for the Prometheus Operator's kinds (ServiceMonitor, PrometheusRule), the CRD schemas bundled in
// @kubernetes-models/prometheus-operator.
//
//   node validate-manifests.mjs FILE...
//
// Each FILE holds one or more YAML documents. One line per document:
//   OK   <file> <apiVersion> <kind> <name>
//   SKIP <file> <apiVersion> <kind> <name>   no schema bundled for this kind (a CRD of another project)
//   FAIL <file> <apiVersion> <kind> <name>: <why>
// A document that is not YAML, or lacks apiVersion, kind or metadata.name, fails. Exit status: 1 when any
// document fails, else 0. The caller decides which kinds may be skipped.
import fs from 'node:fs';
import { parseAllDocuments } from 'yaml';

// API groups defined by CRDs, and the package that bundles their schemas.
const CRD_PACKAGES = { 'monitoring.coreos.com': '@kubernetes-models/prometheus-operator' };

async function schemaFor(apiVersion, kind) {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : [null, apiVersion];
  const bundle = CRD_PACKAGES[group] ?? 'kubernetes-models';
  const module = group ? `${bundle}/${group}/${version}` : `${bundle}/${version}`;
  try {
    return (await import(module))[kind];
  } catch {
    return undefined; // no such group/version in the bundle
  }
}

async function check(file, document) {
  if (document.errors.length > 0) {
    return `FAIL ${file} - - -: ${document.errors[0].message}`;
  }
  const object = document.toJSON();
  const apiVersion = object?.apiVersion;
  const kind = object?.kind;
  const name = object?.metadata?.name;
  const what = `${file} ${apiVersion ?? '-'} ${kind ?? '-'} ${name ?? '-'}`;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || typeof name !== 'string') {
    return `FAIL ${what}: apiVersion, kind and metadata.name are required`;
  }
  const Model = await schemaFor(apiVersion, kind);
  if (!Model) {
    return `SKIP ${what}`;
  }
  try {
    new Model(object).validate();
    return `OK   ${what}`;
  } catch (e) {
    return `FAIL ${what}: ${String(e.message).replace(/\s+/g, ' ').slice(0, 400)}`;
  }
}

let failed = 0;
for (const file of process.argv.slice(2)) {
  const documents = parseAllDocuments(fs.readFileSync(file, 'utf8')).filter((d) => d.contents !== null);
  for (const document of documents) {
    const line = await check(file, document);
    if (line.startsWith('FAIL')) {
      failed++;
    }
    console.log(line);
  }
}
process.exit(failed > 0 ? 1 : 0);

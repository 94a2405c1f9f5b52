import { after, test } from "node:test";
import { IdCluster, scenariosDir } from "./support/cluster.js";
import { ScenarioRun, loadScenarios, skipReason } from "./support/runner.js";

// The conformance suite (test/conformance/README.md): every scenario file, in name order,
// against clusters the control program starts; none is copied here.
const scenarios = loadScenarios(scenariosDir());
let cluster: IdCluster | undefined;

after(async () => {
  await cluster?.close();
});

test("the conformance suite has scenarios", () => {
  if (scenarios.length === 0) throw new Error(`no scenarios in ${scenariosDir()}`);
});

for (const s of scenarios) {
  const skip = skipReason(s);
  test(`${s.file}: ${s.description}`, { skip: skip ?? false, timeout: 120_000 }, async (t) => {
    cluster ??= new IdCluster();
    await new ScenarioRun(cluster, s).run((line) => t.diagnostic(line));
  });
}

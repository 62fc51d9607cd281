// A count of the work done on input that a skill author, a document author or
// an agent controls: lines and characters scanned, regex tests, comparisons,
// edit-distance cells, YAML nodes converted. The hot loops of the compiler,
// the document parser, the activation engine and the skill tool add to it, so
// that the fuzz test can check that work grows linearly with the input,
// counting instead of timing (test/fuzz/hostile-input.test.ts). Nothing reads
// it in production, and it stays in the loops because bundled, as the package
// ships, they run as fast as without it (bench/RESULTS.md, "Figures behind the
// defaults"). It lives in the runtime, the bottom room (it imports nothing),
// so that the runtime's own loops count too and core and skill import it
// downwards.

/** Work units counted since the count was last reset. */
export const work = { steps: 0 }

// A count of the work done on input that a skill author, a document author or
// an agent controls: lines and characters scanned, regex tests, comparisons,
// edit-distance cells, YAML nodes converted. The hot loops of the compiler,
// the document parser, the activation engine and the skill tool add to it, so
// that the fuzz test can check that work grows linearly with the input,
// counting instead of timing (test/fuzz/hostile-input.test.ts). Nothing reads
// it in production; adding to a number is all it costs there.

/** Work units counted since the count was last reset. */
export const work = { steps: 0 }

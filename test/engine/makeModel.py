"""Writes a random-weight llama-architecture GGUF with Qwen3's real tokenizer (ENVIRONMENT.md).

No model hub is reachable and no package ships weights; a seeded random model gives real prefill and
decode timing, streaming, usage, prompt caching and /metrics from llama-server. It never emits an
end-of-sequence token, so answers stop at max_tokens.

usage: python3 makeModel.py TOKENIZER_JSON OUT_GGUF
"""
import json
import sys

import gguf
import numpy as np

LAYERS, WIDTH, FFN, HEADS = 8, 512, 1376, 8
CHATML = (
    "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def main(tokenizer_path: str, out_path: str) -> None:
    with open(tokenizer_path, encoding="utf-8") as f:
        tokenizer = json.load(f)
    vocab = dict(tokenizer["model"]["vocab"])
    special = {}
    for added in tokenizer.get("added_tokens", []):
        vocab[added["content"]] = added["id"]
        special[added["id"]] = bool(added.get("special"))
    size = max(vocab.values()) + 1
    tokens = [f"[PAD{i}]" for i in range(size)]
    types = [gguf.TokenType.UNUSED] * size
    for text, index in vocab.items():
        tokens[index] = text
        types[index] = gguf.TokenType.NORMAL
    for index, is_special in special.items():
        types[index] = gguf.TokenType.CONTROL if is_special else gguf.TokenType.USER_DEFINED
    merges = [m if isinstance(m, str) else " ".join(m) for m in tokenizer["model"]["merges"]]

    writer = gguf.GGUFWriter(out_path, "llama")
    writer.add_name("prompt-insight-random-180m")
    writer.add_context_length(4096)
    writer.add_embedding_length(WIDTH)
    writer.add_block_count(LAYERS)
    writer.add_feed_forward_length(FFN)
    writer.add_head_count(HEADS)
    writer.add_head_count_kv(HEADS)
    writer.add_rope_dimension_count(WIDTH // HEADS)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_vocab_size(size)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    writer.add_tokenizer_model("gpt2")
    writer.add_tokenizer_pre("qwen2")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_token_merges(merges)
    writer.add_eos_token_id(vocab["<|im_end|>"])
    writer.add_pad_token_id(vocab["<|endoftext|>"])
    writer.add_bos_token_id(vocab["<|endoftext|>"])
    writer.add_add_bos_token(False)
    writer.add_chat_template(CHATML)

    rng = np.random.default_rng(20261203)
    def weights(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape, dtype=np.float32) * 0.02).astype(np.float16)
    writer.add_tensor("token_embd.weight", weights(size, WIDTH))
    writer.add_tensor("output_norm.weight", np.ones(WIDTH, dtype=np.float32))
    writer.add_tensor("output.weight", weights(size, WIDTH))
    for layer in range(LAYERS):
        prefix = f"blk.{layer}."
        writer.add_tensor(prefix + "attn_norm.weight", np.ones(WIDTH, dtype=np.float32))
        for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
            writer.add_tensor(prefix + name + ".weight", weights(WIDTH, WIDTH))
        writer.add_tensor(prefix + "ffn_norm.weight", np.ones(WIDTH, dtype=np.float32))
        writer.add_tensor(prefix + "ffn_gate.weight", weights(FFN, WIDTH))
        writer.add_tensor(prefix + "ffn_up.weight", weights(FFN, WIDTH))
        writer.add_tensor(prefix + "ffn_down.weight", weights(WIDTH, FFN))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

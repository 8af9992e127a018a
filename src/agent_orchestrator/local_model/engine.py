"""The inference engine: one GGUF model, one llama.cpp context, one generation at a time.

Usage::

    engine = LocalEngine(path, n_ctx=8192)
    for item in engine.generate(prompt, GenerationParams(max_tokens=64)):
        if isinstance(item, str):
            print(item, end="")
        else:                       # the final GenerationStats
            print(item.completion_tokens, item.cached_tokens)

Binding choice: cyllama (prebuilt llama.cpp wheel) over llama-cpp-python, measured on this 2-core box
(shared with other jobs, load average 3-6 during the runs, so speeds swing; see bench/):

- install on a fresh machine: cyllama 0.2.18 is a 15.7 MB manylinux wheel: 1.6 s to download and
  install with an empty cache. llama-cpp-python 0.3.36 ships an sdist only and compiles llama.cpp with
  CMake: 10 min wall, 779 s CPU here. That is per machine (and per CI run without a warm cache).
- decode speed: both wrap the same llama.cpp, so neither is faster by nature. In the same alternating
  runs (``bench_local_model.py --llama-cpp-python``) llama-cpp-python decoded 2.3-8.3 tok/s, our
  server 13-16 tok/s and cyllama's raw loop 1.2-8.9 tok/s. With the second core free, the raw loop
  reaches ~33 tok/s with 2 threads (20 with 1).
- prompt-prefix reuse: llama-cpp-python has it built in; cyllama's high-level ``LLM`` clears the KV
  cache on every call, so we drive the low-level API ourselves: we remember which tokens sit in the KV
  cache, keep the longest common prefix with the new prompt (``memory_seq_rm`` drops the rest) and only
  decode the new suffix. Turn 2 of a chat (242 prompt tokens, 217 reused) then shows its first token
  in ~0.7 s instead of ~5-9 s cold.
- tool calls: neither gives us Qwen2.5's ``<tool_call>`` format as OpenAI ``tool_calls`` reliably
  (llama-cpp-python's ``chatml-function-calling`` handler uses its own prompt), so we render the GGUF's
  own template and parse the blocks ourselves in ``chat_format``.

Threads: we use the cores this process may run on (``os.sched_getaffinity``; llama.cpp's default is
4). Beware oversubscription: llama.cpp's threads meet at spin barriers after every layer, so when
another process holds one of two cores, 2 threads collapse (2.5 tok/s median here) while 1 thread
keeps ~13 tok/s; pass ``n_threads`` when the machine is known to be busy.

Text: llama.cpp's detokenizer drops the first token's leading space and ``token_to_piece`` mangles
characters split over byte tokens, so pieces are decoded behind an anchor token and held while they
end in an incomplete UTF-8 sequence (see ``_detokenize``).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, TypeAlias

from cyllama.llama.llama_cpp import (
    LlamaContext,
    LlamaContextParams,
    LlamaModel,
    LlamaModelParams,
    LlamaSampler,
    LlamaSamplerChainParams,
    disable_logging,
    ggml_backend_load_all,
    llama_batch_get_one,
)
from cyllama.utils.validation import validate_gguf_file

DEFAULT_N_CTX = 8192
_MAX_HELD_TOKENS = 4  # a UTF-8 character spans at most 4 byte-level tokens
_MIN_RESTORE_GAIN = 64  # tokens: below this, re-prefilling is cheaper than saving and restoring state


class EngineError(RuntimeError):
    """The model could not be loaded or run."""


class ContextLengthExceeded(ValueError):
    """Prompt plus requested completion do not fit in the context window (HTTP 400 for the server)."""

    def __init__(self, prompt_tokens: int, max_tokens: int, n_ctx: int) -> None:
        super().__init__(
            f"This model's maximum context length is {n_ctx} tokens. However, you requested "
            f"{prompt_tokens + max_tokens} tokens ({prompt_tokens} in the messages, {max_tokens} in the "
            f"completion). Please reduce the length of the messages or completion."
        )
        self.prompt_tokens, self.max_tokens, self.n_ctx = prompt_tokens, max_tokens, n_ctx


@dataclass(frozen=True)
class GenerationParams:
    max_tokens: int
    temperature: float = 0.0
    top_p: float = 1.0
    stop: Sequence[str] = ()
    seed: int | None = None
    grammar: str | None = None
    """GBNF (root rule ``root``): only tokens that keep the output in the grammar are sampled."""


@dataclass
class GenerationStats:
    """Yielded last by :meth:`LocalEngine.generate`."""

    prompt_tokens: int
    completion_tokens: int = 0
    cached_tokens: int = 0  # prompt tokens whose KV entries were reused from the previous request
    finish_reason: str = "stop"  # "stop" | "length" | "cancelled"
    prefill_seconds: float = 0.0
    decode_seconds: float = 0.0
    first_token_seconds: float | None = None


Generation: TypeAlias = Generator[str | GenerationStats, None, None]
"""Text pieces, then one :class:`GenerationStats`. A generator, not just an iterator: a caller that stops
early closes it, which releases the engine's lock at once instead of whenever it is garbage-collected."""


class Engine(Protocol):
    """What the server needs from an engine (:class:`LocalEngine`, or a fake in tests)."""

    n_ctx: int
    load_seconds: float

    @property
    def chat_template(self) -> str: ...

    @property
    def special_tokens(self) -> tuple[str, str]: ...

    def tokenize(self, text: str) -> list[int]: ...

    def warm_up(self) -> None: ...

    def generate(
        self, prompt: str | list[int], params: GenerationParams, cancel: threading.Event | None = None
    ) -> Generation: ...


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


class LocalEngine:
    """A loaded model. Thread-safe: generations are serialised by a lock."""

    def __init__(
        self,
        model_path: Path | str,
        *,
        n_ctx: int = DEFAULT_N_CTX,
        n_threads: int | None = None,
        n_batch: int = 512,
        verbose: bool = False,
        saved_state_bytes: int = 256 * 2**20,
    ) -> None:
        path = Path(model_path)
        try:
            # llama.cpp can segfault on a malformed file; cyllama's header check refuses it first.
            validate_gguf_file(str(path))
        except (OSError, ValueError) as exc:
            raise EngineError(str(exc).splitlines()[0]) from exc
        if not verbose:
            disable_logging()
        ggml_backend_load_all()
        started = time.perf_counter()
        try:
            self._model = LlamaModel(str(path), LlamaModelParams())
        except (RuntimeError, ValueError, OSError) as exc:
            raise EngineError(f"cannot load model {path.name}: {exc}") from exc
        if n_ctx < 256:
            raise EngineError(f"n_ctx must be at least 256, got {n_ctx}")
        if n_ctx > self._model.n_ctx_train:
            raise EngineError(f"n_ctx {n_ctx} exceeds the model's trained context {self._model.n_ctx_train}")
        self.n_threads = n_threads or available_cores()
        params = LlamaContextParams()
        params.n_ctx = n_ctx
        params.n_batch = n_batch
        params.n_threads = self.n_threads
        params.n_threads_batch = self.n_threads
        params.no_perf = True
        try:
            self._ctx = LlamaContext(self._model, params)
        except (RuntimeError, ValueError, MemoryError) as exc:
            raise EngineError(f"cannot create a {n_ctx}-token context: {exc}") from exc
        self._vocab = self._model.get_vocab()
        self._anchor = list(self._vocab.tokenize("A", add_special=False, parse_special=False))
        self._anchor_len = len(
            self._vocab.detokenize(self._anchor, remove_special=False, unparse_special=True)
        )
        self.n_ctx = n_ctx
        self.n_batch = n_batch
        self.model_path = path
        self._lock = threading.Lock()
        self._cached: list[int] = []  # the tokens whose KV entries are in sequence 0, in order
        self._saved_states = SavedStates(saved_state_bytes)
        self.load_seconds = time.perf_counter() - started

    def warm_up(self) -> None:
        """Run one decode now, on the thread that will run the generations.

        The first decode allocates compute buffers and faults the mmapped weights in (~1-2 s here):
        better paid at start than in the first user's first-token latency. *Which* thread matters:
        llama.cpp's OpenMP worker threads belong to the thread that calls it, and a second calling
        thread leaves the first one's team alive beside its own; on two cores decoding then drops
        from ~30 to ~21 tok/s (measured). So a server warms up on its inference thread and calls
        the engine from that thread only.
        """
        started = time.perf_counter()
        with self._lock:
            self._ctx.decode(llama_batch_get_one(self._anchor, 0))
            self._ctx.kv_cache_clear()
        self.load_seconds += time.perf_counter() - started

    # --- model facts ---

    @property
    def chat_template(self) -> str:
        return self._model.get_default_chat_template() or ""

    @property
    def special_tokens(self) -> tuple[str, str]:
        """(bos, eos) as text, for the chat template."""
        bos, eos = self._vocab.token_bos(), self._vocab.token_eos()
        return (
            self._vocab.token_to_piece(bos, special=True) if bos >= 0 else "",
            self._vocab.token_to_piece(eos, special=True) if eos >= 0 else "",
        )

    def tokenize(self, text: str) -> list[int]:
        return list(self._vocab.tokenize(text, add_special=True, parse_special=True))

    def _detokenize(self, tokens: list[int]) -> str:
        # llama.cpp's detokenize drops the leading space of the *first* token (" Risk" -> "Risk"), and
        # token_to_piece turns each byte of a multi-token character into U+FFFD. So we detokenize
        # behind a fixed one-character anchor token and cut the anchor off again.
        text = self._vocab.detokenize(self._anchor + tokens, remove_special=False, unparse_special=True)
        return text[self._anchor_len :]

    # --- generation ---

    def generate(
        self,
        prompt: str | list[int],
        params: GenerationParams,
        cancel: threading.Event | None = None,
    ) -> Generation:
        """Yield text pieces as they are generated, then one :class:`GenerationStats`.

        The request is validated here, before anything is yielded (:class:`ContextLengthExceeded`,
        ``ValueError``). Iterating blocks while another generation runs. Setting ``cancel`` stops at
        the next token (or prefill chunk); the stats then say ``finish_reason="cancelled"``. Exhaust or
        close the iterator from the thread that iterates it, so the lock is released.
        """
        tokens = self.tokenize(prompt) if isinstance(prompt, str) else list(prompt)
        if not tokens:
            raise ValueError("empty prompt")
        if params.max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        if len(tokens) + params.max_tokens > self.n_ctx:
            raise ContextLengthExceeded(len(tokens), params.max_tokens, self.n_ctx)
        return self._generate_locked(tokens, params, cancel or threading.Event())

    def _generate_locked(
        self, tokens: list[int], params: GenerationParams, cancel: threading.Event
    ) -> Generation:
        with self._lock:
            yield from self._generate_unlocked(tokens, params, cancel)

    def _generate_unlocked(
        self, tokens: list[int], params: GenerationParams, cancel: threading.Event
    ) -> Generation:
        stats = GenerationStats(prompt_tokens=len(tokens))
        started = time.perf_counter()
        if cancel.is_set():
            stats.finish_reason = "cancelled"
            yield stats
            return
        stats.cached_tokens = self._reuse_prefix(tokens)
        if not self._prefill(tokens, stats.cached_tokens, cancel):
            stats.finish_reason = "cancelled"
            yield stats
            return
        stats.prefill_seconds = time.perf_counter() - started

        sampler = _make_sampler(params, self._vocab)
        stops = [s for s in params.stop if s]
        hold = max((len(s) for s in stops), default=1) - 1
        text_buf = ""  # decoded text not yet released (may be the start of a stop string)
        pending: list[int] = []  # tokens not yet decodable to whole characters
        decode_started = time.perf_counter()
        stats.finish_reason = "length"
        try:
            for n in range(params.max_tokens):
                if cancel.is_set():
                    stats.finish_reason = "cancelled"
                    break
                token = sampler.sample(self._ctx, -1)
                if self._vocab.is_eog(token):
                    stats.finish_reason = "stop"
                    break
                stats.completion_tokens += 1
                if stats.first_token_seconds is None:
                    stats.first_token_seconds = time.perf_counter() - started
                pending.append(token)
                piece = self._detokenize(pending)
                if piece.endswith("\ufffd") and len(pending) < _MAX_HELD_TOKENS:
                    piece = ""  # an incomplete UTF-8 sequence; wait for the next byte token(s)
                else:
                    pending = []
                text_buf += piece
                if stops:
                    cut = _find_stop(text_buf, stops)
                    if cut is not None:
                        if cut:
                            yield text_buf[:cut]
                        text_buf = ""
                        stats.finish_reason = "stop"
                        break
                release = len(text_buf) - hold if stops else len(text_buf)
                if release > 0:
                    yield text_buf[:release]
                    text_buf = text_buf[release:]
                if n + 1 < params.max_tokens:  # the last sampled token never needs its KV entry
                    self._decode([token], cancel)
        except InterruptedError:
            stats.finish_reason = "cancelled"
        finally:
            sampler.close()
        if text_buf:
            yield text_buf
        stats.decode_seconds = time.perf_counter() - decode_started
        yield stats

    def _reuse_prefix(self, tokens: list[int]) -> int:
        """Drop KV entries past the common prefix; return how many prompt tokens are already cached.

        When another conversation's saved state shares more of the prompt than the live cache does
        (several users take turns on one model), the live state is saved and that one restored.
        """
        common = _common_prefix(self._cached, tokens)
        saved = self._saved_states.best(tokens)
        if saved is not None and saved[1] > common + _MIN_RESTORE_GAIN:
            self._save_live_state()
            key, common = saved
            self._ctx.kv_cache_clear()
            self._ctx.set_state_seq_data(self._saved_states.pop(key), 0)
            self._cached = list(key)
        elif common + _MIN_RESTORE_GAIN < len(self._cached):
            self._save_live_state()  # this conversation is about to be overwritten
        keep = min(common, len(tokens) - 1)  # always decode >= 1 token: we need fresh logits
        if keep < len(self._cached) and not self._ctx.memory_seq_rm(0, keep, -1):
            keep = 0
            self._ctx.kv_cache_clear()
        del self._cached[keep:]
        return keep

    def _prefill(self, tokens: list[int], start: int, cancel: threading.Event) -> bool:
        for i in range(start, len(tokens), self.n_batch):
            if cancel.is_set():
                return False
            try:
                self._decode(tokens[i : i + self.n_batch], cancel)
            except InterruptedError:
                return False
        return True

    def _decode(self, batch: list[int], cancel: threading.Event) -> None:
        pos = len(self._cached)
        try:
            self._ctx.decode(llama_batch_get_one(batch, pos))
        except (InterruptedError, ValueError, RuntimeError):
            # Part of the batch may have landed in the KV cache: cut back to what we know is there.
            self._ctx.memory_seq_rm(0, pos, -1)
            raise
        self._cached.extend(batch)

    def _save_live_state(self) -> None:
        if len(self._cached) > _MIN_RESTORE_GAIN:
            self._saved_states.put(tuple(self._cached), self._ctx.get_state_seq_data(0))

    def reset(self) -> None:
        """Forget the KV cache (tests and benchmarks use this to measure a cold prompt)."""
        with self._lock:
            self._ctx.kv_cache_clear()
            self._cached.clear()
            self._saved_states.clear()

    def close(self) -> None:
        with self._lock:
            self._ctx.close()
            self._model.close()


class SavedStates:
    """KV states of recent conversations (llama.cpp sequence state), least recently used out first.

    A 0.5B model's KV entry is ~12 KB a token, so a 2,000-token chat is ~24 MB: restoring it is a
    memory copy (milliseconds) where re-prefilling it costs ~10 s on two cores.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._states: OrderedDict[tuple[int, ...], bytes] = OrderedDict()

    def put(self, tokens: tuple[int, ...], state: bytes) -> None:
        self._states.pop(tokens, None)
        self._states[tokens] = state
        while self._states and sum(len(s) for s in self._states.values()) > self.max_bytes:
            self._states.popitem(last=False)

    def best(self, tokens: list[int]) -> tuple[tuple[int, ...], int] | None:
        """The saved state sharing the longest prefix with ``tokens``, and that prefix's length."""
        scored = [(key, _common_prefix(key, tokens)) for key in self._states]
        return max(scored, key=lambda pair: pair[1], default=None)

    def pop(self, tokens: tuple[int, ...]) -> bytes:
        return self._states.pop(tokens)

    def clear(self) -> None:
        self._states.clear()


def _common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def _make_sampler(params: GenerationParams, vocab: object) -> LlamaSampler:
    chain = LlamaSamplerChainParams()
    chain.no_perf = True
    sampler = LlamaSampler(chain)
    if params.grammar:
        # First in the chain: it masks the logits every later sampler chooses from.
        sampler.add_grammar(vocab, params.grammar, "root")
    if params.temperature <= 0.0:
        sampler.add_greedy()
        return sampler
    if params.top_p < 1.0:
        sampler.add_top_p(params.top_p, 1)
    sampler.add_temp(params.temperature)
    # 0xFFFFFFFF is LLAMA_DEFAULT_SEED: a fresh random seed per request.
    sampler.add_dist(params.seed if params.seed is not None else 0xFFFFFFFF)
    return sampler


def _find_stop(text: str, stops: Sequence[str]) -> int | None:
    found = [i for i in (text.find(s) for s in stops) if i >= 0]
    return min(found) if found else None

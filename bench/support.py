"""Benchmark of citeguard's paraphrase checks against real labelled claims.

Run from the repository root::

    .venv/bin/python bench/support.py                  # WiCE dev + ExpertQA val + cost
    .venv/bin/python bench/support.py --misses 10      # print some misses of each kind
    .venv/bin/python bench/support.py --judge http://127.0.0.1:8000/v1 --judge-model m
    .venv/bin/python bench/support.py --judge /path/to/nli-folder --judge-limit 200

Data (``../shared/datasets``, see its README; none of it is committed here):

* WiCE dev (``wice/claim_dev.jsonl``): 349 Wikipedia claims, each with the web
  article it cites split into sentences, a label (supported, partially
  supported, not supported) and the sets of sentences that together support it.
* WiCE's non-supported-token files: partially supported sub-claims with the
  words the evidence does not support marked by annotators.
* ExpertQA val (``expertqa/lfqa_domain_val.jsonl``): real answers of six
  systems with ``[n]`` markers, each claim with its cited evidence and an
  expert's support label (Complete, Partial, Incomplete, Missing, …).

Each claim becomes an answer ``claim [S1]`` with the cited article as S1 (its
sentences one to a line), or, for ExpertQA, the claim as the system wrote it
with its own markers and each cited evidence text as that marker's source,
and goes through ``verify_answer`` exactly as the API runs it. It prints:

1. passage located (WiCE): the share of claims whose located passage holds a
   sentence of one of the annotated supporting sets, beside the floor the
   datasets' README names (an IDF-weighted word-overlap ranking, 73%);
2. flags per label and per check: the share of claims with a failing
   paraphrase outcome (``claim-mismatch``, ``claim-unsupported``);
3. reasons: on the non-supported-token files, the share of flagged sub-claims
   whose finding names a word the annotators marked;
4. cost: ``verify_answer`` with the paraphrase checks on and off, on the same
   answers side by side: ``bench/verify.py``'s quoted workload and the WiCE
   answers; CPU time of this process.

With ``--judge`` it also runs the semantic stage over the claims and prints its
agreement with the labels: the figures are the supplied model's, not
citeguard's.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from verification import VerificationConfig, verify_answer  # noqa: E402
from verification.report import Citation, Report  # noqa: E402

DATASETS = ROOT.parent / "shared" / "datasets"
#: Outcomes of the paraphrase checks: what "flagged" means here.
PARAPHRASE_FLAGS = ("claim-mismatch", "claim-unsupported")
CONFIG = VerificationConfig()
OFF = VerificationConfig(check_claims=False)


@dataclass(frozen=True)
class Claim:
    dataset: str
    label: str
    answer: str
    sources: dict[str, str]
    # WiCE: each evidence sentence's range in S1, and the supporting sets.
    sentence_ranges: tuple[tuple[int, int], ...] = ()
    supporting: tuple[tuple[int, ...], ...] = ()
    # Non-supported-token files: the claim's words and which were marked.
    tokens: tuple[str, ...] = ()
    marked: tuple[bool, ...] = ()


def _article(evidence: Sequence[str]) -> tuple[str, tuple[tuple[int, int], ...]]:
    ranges, parts, position = [], [], 0
    for sentence in evidence:
        parts.append(sentence)
        ranges.append((position, position + len(sentence)))
        position += len(sentence) + 1
    return "\n".join(parts), tuple(ranges)


def read_wice(path: Path, dataset: str = "wice") -> Iterator[Claim]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            text, ranges = _article(row["evidence"])
            yield Claim(
                dataset=dataset, label=row["label"], answer=f"{row['claim']} [S1]",
                sources={"S1": text}, sentence_ranges=ranges,
                supporting=tuple(tuple(s) for s in row["supporting_sentences"] if s),
                tokens=tuple(row.get("claim_tokens", ())),
                marked=tuple(row.get("non_supported_spans", ())),
            )


def read_expertqa(path: Path) -> Iterator[Claim]:
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            for answer in row["answers"].values():
                for claim in answer.get("claims") or []:
                    sources = {}
                    for evidence in claim.get("evidence") or []:
                        head, _, body = evidence.partition("\n\n")
                        marker = head.split("]", 1)[0].lstrip("[").strip()
                        if marker.isdigit() and body.strip():
                            sources[marker] = body
                    if not sources or claim.get("support") in (None, "N/A"):
                        continue
                    yield Claim(dataset="expertqa", label=claim["support"],
                                answer=claim["claim_string"], sources=sources)


def paraphrase_flag(report: Report) -> list[Citation]:
    return [c for c in report.citations if c.outcome in PARAPHRASE_FLAGS]


def checks_of(citations: Sequence[Citation]) -> set[str]:
    checks = {f.check for c in citations for f in c.findings}
    if any(c.outcome == "claim-unsupported" for c in citations):
        checks.add("unsupported")
    return checks


def located(claim: Claim, report: Report) -> bool | None:
    """Whether the located passage holds a sentence of a supporting set (None:
    the claim has no supporting set to hold)."""
    if not claim.supporting:
        return None
    wanted = {i for group in claim.supporting for i in group}
    for citation in report.citations:
        if citation.passage_start is None or citation.passage_end is None:
            continue
        for index, (start, end) in enumerate(claim.sentence_ranges):
            if index in wanted and start < citation.passage_end and end > citation.passage_start:
                return True
    return False


def names_marked_word(claim: Claim, citations: Sequence[Citation]) -> bool:
    """Whether a finding (or an unsupported citation's missing words) names a
    word the annotators marked as not supported."""
    text = claim.answer
    spans, position = [], 0
    for token in claim.tokens:
        found = text.find(token, position)
        if found < 0:
            spans.append(None)
            continue
        spans.append((found, found + len(token)))
        position = found + len(token)
    marked = [span for span, flag in zip(spans, claim.marked, strict=False) if flag and span]
    for citation in citations:
        for finding in citation.findings:
            if any(s < finding.claim_end and e > finding.claim_start for s, e in marked):
                return True
        if citation.outcome == "claim-unsupported":
            words = {w.casefold() for w in citation.missing}
            if any(text[s:e].casefold() in words for s, e in marked):
                return True
    return False


def pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:5.1f}% ({part}/{whole})" if whole else "   n/a"


def section_located(claims: list[Claim], reports: list[Report], misses: int) -> None:
    print("\n1. Passage located (WiCE dev): the located passage holds a supporting sentence")
    rows: dict[str, list[bool]] = {}
    for claim, report in zip(claims, reports, strict=True):
        hit = located(claim, report)
        if hit is not None:
            rows.setdefault(claim.label, []).append(hit)
            rows.setdefault("all with a supporting set", []).append(hit)
    for label, hits in rows.items():
        print(f"   {label:28} {pct(sum(hits), len(hits))}")
    print("   floor (datasets README): 73% for an IDF-weighted overlap ranking's first sentence")
    shown = 0
    for claim, report in zip(claims, reports, strict=True):
        if shown >= misses or located(claim, report) is not False:
            continue
        shown += 1
        citation = next((c for c in report.citations if c.passage_start is not None), None)
        text = claim.sources["S1"]
        print(f"   miss: {claim.answer[:160]!r}")
        if citation is not None:
            assert citation.passage_start is not None and citation.passage_end is not None
            print(f"     located: {text[citation.passage_start:citation.passage_end][:200]!r}")
        first = claim.supporting[0][0]
        start, end = claim.sentence_ranges[first]
        print(f"     wanted:  {text[start:end][:200]!r}")


def section_flags(claims: list[Claim], reports: list[Report], misses: int) -> None:
    print("\n2. Flags: claims with a failing paraphrase outcome (claim-mismatch or "
          "claim-unsupported)")
    by_label: dict[tuple[str, str], list[bool]] = {}
    per_check: dict[tuple[str, str], Counter[str]] = {}
    for claim, report in zip(claims, reports, strict=True):
        flagged = paraphrase_flag(report)
        key = (claim.dataset, claim.label)
        by_label.setdefault(key, []).append(bool(flagged))
        per_check.setdefault(key, Counter()).update(checks_of(flagged))
    for (dataset, label), flags in sorted(by_label.items()):
        checks = per_check[(dataset, label)]
        detail = ", ".join(f"{check} {n}" for check, n in checks.most_common())
        print(f"   {dataset:9} {label:20} {pct(sum(flags), len(flags))}   {detail}")
    wice_bad = [f for (d, label), flags in by_label.items() if d == "wice"
                and label != "supported" for f in flags]
    wice_good = by_label.get(("wice", "supported"), [])
    eqa_good = by_label.get(("expertqa", "Complete"), [])
    eqa_bad = [f for (d, label), flags in by_label.items() if d == "expertqa"
               and label != "Complete" for f in flags]
    for name, flags in (("WiCE supported flagged (false alarms)", wice_good),
                        ("ExpertQA Complete flagged (false alarms)", eqa_good),
                        ("WiCE partially or not supported flagged", wice_bad),
                        ("ExpertQA not Complete flagged", eqa_bad)):
        print(f"   {name + ':':49}{pct(sum(flags), len(flags))}")
    print("   floor (datasets README): 'a number the evidence lacks' flags 30% at 3.5% false "
          "alarms on WiCE")
    shown = Counter[str]()
    for claim, report in zip(claims, reports, strict=True):
        flagged = paraphrase_flag(report)
        good = claim.label in ("supported", "Complete")
        if flagged and good and shown["false"] < misses:
            shown["false"] += 1
            print(f"   false alarm ({claim.dataset}): {claim.answer[:150]!r}")
            for citation in flagged:
                print(f"     {citation.outcome}: {citation.message[:220]}")


#: Operating points printed side by side: which claim checks run.
POINTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("all checks (the default)", CONFIG.claim_checks),
    ("without names", tuple(c for c in CONFIG.claim_checks if c != "entity")),
    ("numbers only", ("number",)),
    ("negation, quantifiers, modals, order", ("negation", "quantifier", "modal",
                                              "comparative")),
)


def section_points(claims: list[Claim]) -> None:
    print("\n2b. Operating points: false alarms against flags found, per set of checks "
          "(claim-unsupported included in each)")
    print(f"   {'checks':38} {'WiCE sup.':>10} {'EQA Compl.':>10} {'WiCE part/not':>14} "
          f"{'EQA other':>10}")
    for name, checks in POINTS:
        config = VerificationConfig(claim_checks=checks)
        groups: dict[str, list[bool]] = {"ws": [], "eg": [], "wb": [], "eb": []}
        for claim in claims:
            flagged = bool(paraphrase_flag(verify_answer(claim.answer, claim.sources,
                                                         config=config)))
            good = claim.label in ("supported", "Complete")
            key = ("w" if claim.dataset == "wice" else "e") + ("s" if good else "b")
            groups["eg" if key == "es" else key].append(flagged)
        cells = [f"{100 * sum(g) / len(g):.1f}%" if g else "n/a"
                 for g in (groups["ws"], groups["eg"], groups["wb"], groups["eb"])]
        print(f"   {name:38} {cells[0]:>10} {cells[1]:>10} {cells[2]:>14} {cells[3]:>10}")


def section_reasons(claims: list[Claim], reports: list[Report]) -> None:
    print("\n3. Reasons (WiCE non-supported-token files): flagged sub-claims whose reason "
          "names a marked word")
    for dataset in ("wice-tokens-dev", "wice-tokens-train"):
        flagged = named = total = 0
        for claim, report in zip(claims, reports, strict=True):
            if claim.dataset != dataset:
                continue
            total += 1
            citations = paraphrase_flag(report)
            if citations:
                flagged += 1
                named += names_marked_word(claim, citations)
        print(f"   {dataset:18} flagged {pct(flagged, total)}; reason names a marked word "
              f"{pct(named, flagged)}")


def _cpu(answers: Sequence[tuple[str, dict[str, str]]], config: VerificationConfig,
         repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.process_time()
        for text, sources in answers:
            verify_answer(text, sources, config=config)
        best = min(best, time.process_time() - started)
    return best


def section_cost(claims: list[Claim], quick: bool) -> None:
    print("\n4. Cost: verify_answer with the paraphrase checks on and off, same answers, "
          "CPU time (best of 3)")
    sys.path.insert(0, str(ROOT / "bench"))
    import verify as verify_bench  # bench/verify.py's workload

    rng = random.Random(20240601)
    pool = verify_bench.load_sources(rng, verify_bench.CORPUS_DIR)
    workload = verify_bench.build_workload(rng, pool, 8 if quick else 40)
    quoted = [(a.text, a.sources) for a in workload]
    paraphrased = [(c.answer, c.sources) for c in claims if c.dataset == "wice"]
    for name, answers in (("bench/verify.py workload (quoted)", quoted),
                          ("WiCE dev answers (paraphrased)", paraphrased)):
        off = _cpu(answers, OFF, 3)
        on = _cpu(answers, CONFIG, 3)
        print(f"   {name:36} off {1000 * off / len(answers):7.2f} ms/answer, on "
              f"{1000 * on / len(answers):7.2f} ms/answer: {on / off:.2f}x")


def section_judge(claims: list[Claim], reports: list[Report], target: str,
                  model: str | None, limit: int) -> None:
    """The semantic stage over the claims: each citation's passage (or the
    sentences around its quote) as premise, the sentence as hypothesis, as
    the task runs it. Agreement with the labels is the supplied model's."""
    import os

    from verification.entailment import JudgeError, judge_open

    judge = judge_open(target, model=model, api_key=os.environ.get("CITEGUARD_JUDGE_API_KEY"))
    print(f"\n5. Semantic stage: {judge.model_id} on up to {limit} claims "
          "(its figures are the model's, not citeguard's)")
    table: dict[tuple[str, str], Counter[str]] = {}
    errors: Counter[str] = Counter()
    latencies: list[float] = []
    for claim, report in list(zip(claims, reports, strict=True))[:limit]:
        citation = next((c for c in report.citations if c.passage_start is not None), None)
        if citation is None or citation.passage_end is None:
            continue
        source = claim.sources[citation.source_marker or citation.marker or "S1"]
        premise = source[citation.passage_start:citation.passage_end]
        hypothesis = report.sentences[0].text if report.sentences else claim.answer
        try:
            judgement = judge.judge(premise, hypothesis)
        except JudgeError as error:
            errors[type(error).__name__] += 1
            continue
        latencies.append(judgement.latency_ms)
        table.setdefault((claim.dataset, claim.label), Counter())[judgement.label] += 1
    for (dataset, label), labels in sorted(table.items()):
        total = sum(labels.values())
        print(f"   {dataset:9} {label:20} " + ", ".join(
            f"{name} {pct(n, total)}" for name, n in labels.most_common()))
    if latencies:
        print(f"   latency median {statistics.median(latencies):.0f} ms; errors {dict(errors)}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="citeguard paraphrase-check benchmark")
    parser.add_argument("--datasets", type=Path, default=DATASETS)
    parser.add_argument("--misses", type=int, default=0, help="print this many misses of each kind")
    parser.add_argument("--quick", action="store_true", help="a smaller cost workload")
    parser.add_argument("--no-cost", action="store_true", help="skip the cost section")
    parser.add_argument("--judge", help="a model folder (ONNX NLI) or an OpenAI-compatible URL")
    parser.add_argument("--judge-model", help="the chat model's name (with a URL)")
    parser.add_argument("--judge-limit", type=int, default=200, help="claims to judge")
    args = parser.parse_args(argv)
    wice = args.datasets / "wice"
    if not (wice / "claim_dev.jsonl").is_file():
        print(f"{args.datasets} has no wice/claim_dev.jsonl: nothing to measure")
        return 0
    began = time.perf_counter()
    claims = list(read_wice(wice / "claim_dev.jsonl"))
    for name in ("dev", "train"):
        path = wice / f"non_supported_tokens_{name}.jsonl"
        if path.is_file():
            claims += list(read_wice(path, f"wice-tokens-{name}"))
    expertqa = args.datasets / "expertqa" / "lfqa_domain_val.jsonl"
    if expertqa.is_file():
        claims += list(read_expertqa(expertqa))
    print(f"citeguard paraphrase benchmark: {Counter(c.dataset for c in claims)}")
    seconds, reports = [], []
    for claim in claims:
        started = time.perf_counter()
        reports.append(verify_answer(claim.answer, claim.sources, config=CONFIG))
        seconds.append(time.perf_counter() - started)
    citations = sum(len(r.citations) for r in reports)
    print(f"   {citations} citations; per answer median {1000 * statistics.median(seconds):.2f} "
          f"ms, p95 {1000 * sorted(seconds)[int(0.95 * len(seconds))]:.2f} ms")
    dev = [(c, r) for c, r in zip(claims, reports, strict=True) if c.dataset == "wice"]
    section_located([c for c, _ in dev], [r for _, r in dev], args.misses)
    main_sets = [(c, r) for c, r in zip(claims, reports, strict=True)
                 if c.dataset in ("wice", "expertqa")]
    section_flags([c for c, _ in main_sets], [r for _, r in main_sets], args.misses)
    section_points([c for c, _ in main_sets])
    section_reasons(claims, reports)
    if not args.no_cost:
        section_cost(claims, args.quick)
    if args.judge:
        section_judge([c for c, _ in main_sets], [r for _, r in main_sets], args.judge,
                      args.judge_model, args.judge_limit)
    print(f"\nWall time {time.perf_counter() - began:.0f} s.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

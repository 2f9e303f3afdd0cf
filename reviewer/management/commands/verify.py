"""``manage.py verify FILE``: verify answers offline and print their reports.

FILE is a JSON answer (or a JSON array of answers), a JSONL file of answers,
or ``-`` for standard input. Exit status: 0 when every answer passes, 1 when
any is flagged or failed, 2 on bad input. Needs no database for inline sources.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, TextIO

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewer.verifying import (
    SourceResolutionError,
    budget_sentence,
    pdf_pages_text,
    report_dict,
    resolve_sources,
    verify_work_limit,
)
from verification import VerificationConfig, WorkBudgetExceeded, verify_answer
from verification.formats import FORMATS, FormatError, convert
from verification.payload import PayloadError, parse_answer_payload

BAD_INPUT = 2


class Command(BaseCommand):
    help = "Verify RAG answers (JSON, JSONL, or - for stdin) and print their reports."
    requires_system_checks: ClassVar[list[str]] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="a .json or .jsonl file of answers, or - for stdin")
        parser.add_argument(
            "--threshold", type=float, default=None,
            help="similarity threshold for approximate matches, in (0, 1] (default 0.92)",
        )
        parser.add_argument(
            "--jsonl", action="store_true",
            help="read the input as JSON Lines whatever its name",
        )
        parser.add_argument(
            "--format", choices=FORMATS, default=None, dest="input_format",
            help="the input's format: native (default), or an Anthropic or OpenAI "
            '{"request": ..., "response": ...} pair (also read from a "format" key)',
        )

    def handle(self, *args: Any, file: str, threshold: float | None, jsonl: bool,
               input_format: str | None, **options: Any) -> None:
        self.input_format = input_format
        try:
            limit = verify_work_limit()
            config = (VerificationConfig(max_work=limit) if threshold is None
                      else VerificationConfig(threshold=threshold, max_work=limit))
        except ValueError as error:
            raise CommandError(str(error), returncode=BAD_INPUT) from None
        stream = self._open(file)
        try:
            is_jsonl = jsonl or file.endswith((".jsonl", ".ndjson"))
            if is_jsonl:
                all_pass = self._verify_lines(stream, config)
            else:
                all_pass = self._verify_document(stream, config)
        except BrokenPipeError:  # `verify big.jsonl | head`: the reader left; so do we
            sys.stderr.close()
            sys.exit(1)
        finally:
            if stream is not sys.stdin:
                stream.close()
        if not all_pass:
            sys.exit(1)

    def _open(self, file: str) -> TextIO:
        if file == "-":
            return sys.stdin
        path = Path(file)
        if not path.is_file():
            raise CommandError(f"{file}: no such file", returncode=BAD_INPUT)
        try:
            return path.open(encoding="utf-8")
        except OSError as error:
            raise CommandError(f"{file}: {error.strerror}", returncode=BAD_INPUT) from None

    def _verify_document(self, stream: TextIO, config: VerificationConfig) -> bool:
        try:
            text = stream.read()
        except UnicodeDecodeError:
            raise CommandError("input is not UTF-8 text", returncode=BAD_INPUT) from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as error:
            if error.msg == "Extra data":  # several JSON values: JSON Lines after all
                return self._verify_lines(iter(text.splitlines(keepends=True)), config)
            raise CommandError(
                f"malformed JSON at line {error.lineno}, column {error.colno}: {error.msg}",
                returncode=BAD_INPUT,
            ) from None
        answers = data if isinstance(data, list) else [data]
        reports = [self._verify_one(item, config, where=f"answer {i + 1}" if
                                    isinstance(data, list) else "") for i, item in
                   enumerate(answers)]
        output = reports if isinstance(data, list) else reports[0]
        self.stdout.write(json.dumps(output, indent=2, ensure_ascii=False))
        return all(r["verdict"] == "pass" for r in reports)

    def _verify_lines(self, lines: TextIO | Iterator[str], config: VerificationConfig) -> bool:
        """One report per line; a bad line is named on stderr and skipped, so
        the good lines around it still get their reports (exit status 2)."""
        all_pass = True
        seen = 0
        errors: list[str] = []
        try:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                seen += 1
                try:
                    report = self._verify_one(
                        self._json_line(line, number), config, where=f"line {number}"
                    )
                except CommandError as error:
                    errors.append(str(error))
                    self.stderr.write(f"CommandError: {error}")
                    continue
                all_pass &= report["verdict"] == "pass"
                self.stdout.write(json.dumps(report, ensure_ascii=False))
        except UnicodeDecodeError:
            raise CommandError("input is not UTF-8 text", returncode=BAD_INPUT) from None
        if not seen:
            raise CommandError("no answers in the input", returncode=BAD_INPUT)
        if errors:
            sys.exit(BAD_INPUT)
        return all_pass

    @staticmethod
    def _json_line(line: str, number: int) -> Any:
        try:
            return json.loads(line)
        except json.JSONDecodeError as error:
            raise CommandError(
                f"line {number}: malformed JSON at column {error.colno}: {error.msg}",
                returncode=BAD_INPUT,
            ) from None

    def _verify_one(self, data: Any, config: VerificationConfig, *, where: str) -> dict[str, Any]:
        prefix = f"{where}: " if where else ""
        try:
            if isinstance(data, dict) and self.input_format and "format" not in data:
                data = {**data, "format": self.input_format}
            native = convert(data, pdf_text=pdf_pages_text) if isinstance(data, dict) else data
            payload = parse_answer_payload(native)
            sources = resolve_sources(payload.sources)
            report = report_dict(
                verify_answer(payload.answer, sources, config=config, answer_id=payload.id),
                answer=payload.answer, sources=sources)
            if isinstance(native, dict) and native.get("notes"):
                report["notes"] = list(native["notes"])
            return report
        except (FormatError, PayloadError, SourceResolutionError) as error:
            raise CommandError(f"{prefix}{error}", returncode=BAD_INPUT) from None
        except WorkBudgetExceeded as error:
            # Like bad input: named on its line, and the other lines go on.
            raise CommandError(f"{prefix}{budget_sentence(error)}",
                               returncode=BAD_INPUT) from None

"""Costly answers take turns across the whole cluster: senders spread over
both app servers never have more than HEAVY_VERIFY_SLOTS verifications in
flight. In flight is measured where the slots are: PostgreSQL's advisory
locks (reviewer/slots.py), sampled from pg_locks while the senders run."""

from __future__ import annotations

import threading
import time
from collections import Counter

from deploy import cluster as cluster_module
from reviewer.slots import ADVISORY_LOCK_SPACE
from tests.cluster.conftest import HEAVY_VERIFY_SLOTS, ONCE, Http
from tests.figures import figure
from verification.budget import answer_work_bound

pytestmark = ONCE

SOURCE = " ".join(f"Clause {i} sets the monthly benefit at {i} dollars." for i in range(3000))
QUOTE = " ".join(f"word{i} appears nowhere in the plan" for i in range(12))
ANSWER = f'The plan says "{QUOTE}" [S1].'
SENDERS_PER_APP_SERVER = 3
ANSWERS_PER_SENDER = 6

HELD = ("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted "
        "AND classid = %s AND objsubid = 2 "
        "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")


def test_costly_answers_spread_over_both_app_servers_stay_within_the_slots(
        cluster: cluster_module.Cluster) -> None:
    assert answer_work_bound(ANSWER, len(SOURCE)) > int(cluster.env.get(
        "CITEGUARD_HEAVY_VERIFY_WORK", "10000000"))  # each one is costly
    outcomes: Counter[tuple[str, int | str]] = Counter()
    samples: list[int] = []
    lock = threading.Lock()
    done = threading.Event()

    def send(part: cluster_module.Part, sender: int) -> None:
        client = Http.direct(part, cluster.token)
        for n in range(ANSWERS_PER_SENDER):
            status, body = client.json("POST", "/api/v1/answers", {
                "id": f"heavy-{part.name}-{sender}-{n}", "answer": ANSWER,
                "sources": [{"marker": "S1", "text": SOURCE}]})
            outcome: int | str = status if status != 503 else body["error"]["code"]
            with lock:
                outcomes[(part.name, outcome)] += 1

    def sample() -> None:
        while not done.is_set():
            samples.append(int(cluster.query(HELD, ADVISORY_LOCK_SPACE)[0][0]))

    sampler = threading.Thread(target=sample)
    senders = [threading.Thread(target=send, args=(part, n))
               for part in cluster.app_servers for n in range(SENDERS_PER_APP_SERVER)]
    sampler.start()
    started = time.monotonic()
    for thread in senders:
        thread.start()
    for thread in senders:
        thread.join()
    seconds = time.monotonic() - started
    done.set()
    sampler.join()

    verified = {part.name: outcomes[(part.name, 201)] for part in cluster.app_servers}
    busy = sum(count for (_, outcome), count in outcomes.items()
               if outcome == "verification-busy")
    figure(f"\ncostly answers from {len(senders)} senders over app servers A and B "
           f"({HEAVY_VERIFY_SLOTS} slots): max {max(samples)} in flight over {len(samples)} "
           f"samples of pg_locks in {seconds:.1f} s; verified {verified}, {busy} refused busy "
           f"(503); all outcomes {dict(outcomes)}")
    assert max(samples) <= HEAVY_VERIFY_SLOTS
    assert max(samples) >= 1  # the sampler saw slots held
    assert busy > 0  # more were sent at once than there are slots: the limit was met
    assert all(verified.values())  # both app servers verified some
    assert set(outcomes) <= {(part.name, o) for part in cluster.app_servers
                             for o in (201, "verification-busy")}, outcomes

"""Run-level counters that papers processed in parallel threads add to."""

from __future__ import annotations

import sys
import threading

from dsminer.programs.agent.controller import AgentCounters
from dsminer.programs.agent.step_tools import ToolManager
from dsminer.programs.s2.episode import PlannerCounters


def test_counts_added_from_many_threads_at_once_are_exact():
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: an unlocked += loses updates
    agent, planner, tools = AgentCounters(), PlannerCounters(), ToolManager()
    tools.register("search", lambda: "found")
    try:
        def work() -> None:
            for _ in range(5000):
                agent.add(retries=1)
                planner.add(papers=1, steps=2)
                tools.call("search")

        threads = [threading.Thread(target=work) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert agent.retries == 40_000
    assert (planner.papers, planner.steps) == (40_000, 80_000)
    assert tools.stats["search"].calls == 40_000 and tools.stats["search"].failures == 0

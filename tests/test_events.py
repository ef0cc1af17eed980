import threading

from dsminer.events import EventLog, current_events, recording


def test_a_step_writes_to_the_log_the_run_is_recording_and_only_while_it_records():
    log = EventLog()
    with recording(log):
        current_events().emit("result", paper="a.pdf", step="names")
    current_events().emit("result", paper="b.pdf", step="names")  # no run records: kept apart, in memory
    assert [event["paper"] for event in log.events] == ["a.pdf"]


def test_papers_in_parallel_threads_write_to_their_own_logs():
    logs = {name: EventLog() for name in ("a.pdf", "b.pdf")}
    started = threading.Barrier(2)

    def paper(name: str) -> None:
        with recording(logs[name]):
            started.wait()  # both threads are recording at once
            for _ in range(50):
                current_events().emit("result", paper=name)

    threads = [threading.Thread(target=paper, args=(name,)) for name in logs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {name: {event["paper"] for event in log.events} for name, log in logs.items()} == \
        {"a.pdf": {"a.pdf"}, "b.pdf": {"b.pdf"}}
    assert all(len(log.events) == 50 for log in logs.values())

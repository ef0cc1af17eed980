import dspy
from dspy.utils import DummyLM

from dsminer.run.usage import UsageMeter, all_calls_meter


def test_the_process_meter_counts_calls_of_an_lm_s_copies_too():
    lm = DummyLM([{"answer": "a"}] * 3)
    own, every = UsageMeter(lm), all_calls_meter()
    ask = dspy.Predict("question -> answer")
    with dspy.context(lm=lm):
        ask(question="one")
    with dspy.context(lm=lm.copy(rollout_id=1)):  # as MIPROv2's instruction proposer calls its prompt model
        ask(question="two")
    assert own.take().calls == 1
    assert every.take().calls == 2
    assert every.take().calls == 0  # a take counts from the last one

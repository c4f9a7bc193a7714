"""The bench's summary of repeated rate measurements (benchmarks/run.py)."""

from benchmarks.run import best_of


def test_the_best_reading_is_the_key_and_every_reading_stays_beside_it():
    runs = [{"rate": 176.4, "seed": 0}, {"rate": 218.5, "seed": 1}, {"rate": 172.1, "seed": 2}]
    summary = best_of(runs, "rate")
    assert summary["rate"] == 218.5 and summary["seed"] == 1  # the whole best run, not just its rate
    assert summary["rate_runs"] == [176.4, 218.5, 172.1]  # in the order measured
    assert summary["rate_median"] == 176.4

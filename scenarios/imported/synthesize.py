#!/usr/bin/env python3
"""Writes scenarios/imported/stats.csv: SYNTHETIC per-minute statistics of the synthetic event
in event.json, made by a model that is not queuesim's (a fluid FIFO room, minute by minute), so
a rehearsal can be scored against something it did not produce. No real event is in it.

The model (its known truths, for checking a calibration against):
- second 0 is PreQueueStartTime 08:30Z; the event starts at 09:00Z; outflow 900 numbers a minute;
- arrivals a minute: a pre-queue ramp from 100 to 700 (08:30-08:59), 3,000 for five minutes
  from 09:00, then 1,200 * exp(-(m - 5) / 15) + 100, and 100 a minute from 10:00 to 10:29;
- the pre-queue is shuffled at 09:00 (every pre-queue visitor equally likely at any of its
  places); the queue is first come, first served after that;
- patience exponential, mean 20 minutes from arrival: a visitor who left keeps its number,
  which is reached and wasted (counted in oldqueuenumbers, as Queue-it counts unused numbers);
- 5 % no-shows: a reached number whose visitor never comes to the target (oldqueuenumbers too).
Counts are rounded so that their running totals stay exact. Run: python3 synthesize.py
"""
import math

START = 30          # minute of the event start (09:00Z) after second 0 (08:30Z)
MINUTES = 120       # 08:30Z to 10:30Z
OUTFLOW = 900       # numbers reached a minute
PATIENCE = 20.0     # mean minutes, exponential
NO_SHOW = 0.05


def arrivals(m):
    if m < START:
        return 100 + 600 * m / (START - 1)
    t = m - START
    if t < 5:
        return 3000.0
    if t < 60:
        return 1200 * math.exp(-(t - 5) / 15) + 100
    return 100.0


def present(m, arrived):
    return math.exp(-(m - arrived) / PATIENCE)


columns = {name: [0.0] * MINUTES for name in (
    "queueinflow", "queuebeforeeventinflow", "queueoutflow", "oldqueuenumbers", "queueidsinqueue")}
waits, expected = [None] * MINUTES, [None] * MINUTES
blocks = []          # FIFO of {arrival minute: numbers not yet reached}; the first is the shuffled pre-queue
pre_queue = {}
for m in range(MINUTES):
    n = arrivals(m)
    columns["queueinflow"][m] = n
    if m < START:
        columns["queuebeforeeventinflow"][m] = n
        pre_queue[m] = n
    else:
        if m == START:
            blocks.append(pre_queue)
        blocks.append({m: n})
        capacity, used, wasted, waited = OUTFLOW, 0.0, 0.0, 0.0
        while capacity > 1e-9 and blocks:
            block = blocks[0]
            total = sum(block.values())
            take = min(capacity, total)
            share = take / total if total > 0 else 1.0
            for arrived in list(block):
                reached = block[arrived] * share
                shows = reached * present(m, arrived) * (1 - NO_SHOW)
                used += shows
                wasted += reached - shows
                waited += shows * (m - arrived)
                block[arrived] -= reached
            capacity -= take
            if sum(block.values()) <= 1e-9:
                blocks.pop(0)
        columns["queueoutflow"][m] = used
        columns["oldqueuenumbers"][m] = wasted
        waits[m] = waited / used if used > 0 else None
    in_line = sum(pre_queue.values()) if m < START else 0.0
    in_line += sum(sum(b.values()) for b in blocks)
    columns["queueidsinqueue"][m] = in_line
    expected[m] = (START - m if m < START else 0) + in_line / OUTFLOW


def exact_integers(values):
    out, total, written = [], 0.0, 0
    for value in values:
        total += value
        out.append(round(total) - written)
        written += out[-1]
    return out


counts = {name: exact_integers(values) for name, values in columns.items()}
header = ["minute", "queueinflow", "queuebeforeeventinflow", "queueuniqueinflow", "queueoutflow",
          "queueuniqueoutflow", "safetynetoutflow", "queueidsinqueue", "queueexpectedwaittime",
          "queueactualwaittime", "maxoutflow", "oldqueuenumbers", "redirectedpercentage",
          "returningqueueitemsinlessthan30s", "exceededmaxredirectcount", "queueidscanceled"]
with open("stats.csv", "w") as out:
    out.write(",".join(header) + "\n")
    for m in range(MINUTES):
        hour, minute = divmod(8 * 60 + 30 + m, 60)
        reached = counts["queueoutflow"][m] + counts["oldqueuenumbers"][m]
        row = [
            f"2026-05-01T{hour:02d}:{minute:02d}:00Z", counts["queueinflow"][m], counts["queuebeforeeventinflow"][m],
            counts["queueinflow"][m], counts["queueoutflow"][m], counts["queueoutflow"][m], 0,
            counts["queueidsinqueue"][m], round(expected[m]),
            "" if waits[m] is None else f"{waits[m]:.1f}", OUTFLOW if m >= START else "",
            counts["oldqueuenumbers"][m],
            f"{100 * counts['queueoutflow'][m] / reached:.1f}" if reached else "", 0, 0, 0,
        ]
        out.write(",".join(str(value) for value in row) + "\n")

"""Golden values for the MIREX 2018 workflow of the CLI (tests/test_cli.py).

Run by hand with the reference environment:

    /opt/refenv/bin/python tests/assets/cli/make_mirex_golden.py

It writes the example dataset of audeval as MIREX directories
(one ``onset<TAB>offset<TAB>label`` file per audio file),
evaluates every file with sed_eval 0.2.1
(segment-based at 10 ms as MIREX 2018 did; event-based with a 0.5 s onset collar,
offsets not evaluated: MIREX2018_eval itself also evaluates offsets, within 0.5 s),
sums the intermediate statistics over files
and stores the dataset and per-file values in ``mirex_golden.json``.
"""

import csv
import json
import os
import tempfile

import sed_eval

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "..", "audeval", "data", "example")


def read_dcase(path):
    rows = {}
    with open(path) as fp:
        reader = csv.reader(fp, delimiter="\t")
        next(reader)
        for fields in reader:
            rows.setdefault(fields[0], [])
            if len(fields) == 4:
                rows[fields[0]].append(fields[1:])
    return rows


def write_mirex(rows, folder):
    os.makedirs(folder)
    for file, events in rows.items():
        with open(os.path.join(folder, file.replace(".wav", ".txt")), "w") as fp:
            fp.write("".join("\t".join(e) + "\n" for e in events))


def main():
    truth = read_dcase(os.path.join(EXAMPLE, "truth.tsv"))
    prediction = read_dcase(os.path.join(EXAMPLE, "prediction.tsv"))
    root = tempfile.mkdtemp()
    write_mirex(truth, os.path.join(root, "ref"))
    write_mirex(prediction, os.path.join(root, "est"))
    files = sorted(os.listdir(os.path.join(root, "ref")))
    lists = {
        f: (
            sed_eval.io.load_event_list(os.path.join(root, "ref", f)),
            sed_eval.io.load_event_list(os.path.join(root, "est", f)),
        )
        for f in files
    }
    labels = sorted({e["event_label"] for r, s in lists.values() for e in list(r) + list(s)})
    out = {"labels": labels, "segments": {}, "events": {}}

    # segment-based, 10 ms, per file then summed
    sums = {label: {} for label in labels + ["overall"]}
    per_file = {}
    for f in files:
        ref, est = lists[f]
        m = sed_eval.sound_event.SegmentBasedMetrics(labels, time_resolution=0.01)
        m.evaluate(ref, est)
        res = m.results()
        per_file[f] = {
            label: {
                k: res["class_wise"][label]["f_measure"][k]
                for k in ("precision", "recall", "f_measure")
            }
            for label in labels
        }
        per_file[f]["overall"] = {"accuracy": res["overall"]["accuracy"]["accuracy"]}
        for label in labels:
            for k, v in m.class_wise[label].items():
                sums[label][k] = sums[label].get(k, 0) + v
        for k, v in m.overall.items():
            sums["overall"][k] = sums["overall"].get(k, 0) + v
    dataset = {}
    for label in labels:
        s = sums[label]
        p = s["Ntp"] / s["Nsys"]
        r = s["Ntp"] / s["Nref"]
        dataset[label] = {"precision": p, "recall": r, "f_measure": 2 * p * r / (p + r)}
    o = sums["overall"]
    dataset["overall"] = {
        "accuracy": (o["Ntp"] + o["Ntn"]) / (o["Ntp"] + o["Ntn"] + o["Nfp"] + o["Nfn"]),
        "error_rate": (o["S"] + o["D"] + o["I"]) / o["Nref"],
    }
    out["segments"] = {"dataset": dataset, "files": per_file}

    # event-based, onset within 0.5 s, offsets not evaluated
    sums = {label: {} for label in labels + ["overall"]}
    per_file = {}
    for f in files:
        ref, est = lists[f]
        m = sed_eval.sound_event.EventBasedMetrics(
            labels,
            t_collar=0.5,
            percentage_of_length=0.0,
            evaluate_onset=True,
            evaluate_offset=False,
        )
        m.evaluate(ref, est)
        res = m.results()
        per_file[f] = {
            label: {
                "precision": res["class_wise"][label]["f_measure"]["precision"],
                "recall": res["class_wise"][label]["f_measure"]["recall"],
                "f_measure": res["class_wise"][label]["f_measure"]["f_measure"],
                "deletion_rate": res["class_wise"][label]["error_rate"]["deletion_rate"],
                "insertion_rate": res["class_wise"][label]["error_rate"]["insertion_rate"],
                "error_rate": res["class_wise"][label]["error_rate"]["error_rate"],
            }
            for label in labels
        }
        for label in labels:
            for k, v in m.class_wise[label].items():
                sums[label][k] = sums[label].get(k, 0) + v
        for k, v in m.overall.items():
            sums["overall"][k] = sums["overall"].get(k, 0) + v
    dataset = {}
    for label in labels + ["overall"]:
        s = sums[label]
        p = s["Ntp"] / s["Nsys"]
        r = s["Ntp"] / s["Nref"]
        dataset[label] = {
            "precision": p,
            "recall": r,
            "f_measure": 2 * p * r / (p + r),
            "deletion_rate": s["Nfn"] / s["Nref"],
            "insertion_rate": s["Nfp"] / s["Nref"],
        }
        if label != "overall":
            dataset[label]["error_rate"] = (s["Nfn"] + s["Nfp"]) / s["Nref"]
    o = sums["overall"]
    # sed_eval's overall Nfn and Nfp are deletions and insertions (net of substitutions);
    # MIREX 2018 reported (Nfn + Nfp) / Nref, without substitutions
    dataset["overall"]["substitution_rate"] = o["Nsubs"] / o["Nref"]
    dataset["overall"]["error_rate"] = (o["Nsubs"] + o["Nfn"] + o["Nfp"]) / o["Nref"]
    dataset["overall"]["error_rate_without_substitutions"] = (o["Nfn"] + o["Nfp"]) / o["Nref"]
    out["events"] = {"dataset": dataset, "files": per_file}

    with open(os.path.join(HERE, "mirex_golden.json"), "w") as fp:
        json.dump(out, fp, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()

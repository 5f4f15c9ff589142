#!/usr/bin/env python3
"""Reference distances for RouteLog's geodesic tests, from GeographicLib.

Usage: pip install geographiclib
       python3 tools/geodesic_reference.py [GPX_DIR] > Tests/Fixtures/geodesic-reference.json

For every GPX file in GPX_DIR (default: ../shared/data/gpx next to the package root)
it lists the routes RouteLog's importer makes (one per <trk> with points, in file
order; <rte>s only when the file has no track points) and each route's length: the
sum of the WGS84 geodesic lengths of the steps inside each <trkseg> (a step across a
segment boundary is not travelled). It also lists point pairs, some nearly antipodal,
with their geodesic distance. Only numbers are written, no data from the files.
"""
import json
import math
import os
import random
import sys
import xml.etree.ElementTree as ET

from geographiclib.geodesic import Geodesic


def local(tag):
    return tag.rsplit("}", 1)[-1]


def children(element, name):
    return [c for c in element if local(c.tag) == name]


def segment_length(points):
    total = 0.0
    for (la1, lo1), (la2, lo2) in zip(points, points[1:]):
        total += Geodesic.WGS84.Inverse(la1, lo1, la2, lo2)["s12"]
    return total


def coords(elements):
    return [(float(e.get("lat")), float(e.get("lon"))) for e in elements]


def routes_of(path):
    root = ET.parse(path).getroot()
    routes = []
    for trk in children(root, "trk"):
        segments = [coords(children(seg, "trkpt")) for seg in children(trk, "trkseg")]
        segments = [s for s in segments if s]
        if not segments:
            continue
        routes.append({
            "points": sum(len(s) for s in segments),
            "segments": len(segments),
            "distance": sum(segment_length(s) for s in segments),
        })
    if not routes:
        for rte in children(root, "rte"):
            points = coords(children(rte, "rtept"))
            if points:
                routes.append({"points": len(points), "segments": 1,
                               "distance": segment_length(points)})
    return routes


def pairs():
    rng = random.Random(20261129)
    result = []
    fixed = [
        (0.0, 0.0, 0.5, 179.7),      # Vincenty does not converge
        (0.0, 0.0, 0.0, 179.5),
        (-30.0, 10.0, 29.9, -170.2),
        (45.0, 0.0, -45.0, 179.99),
        (89.9, 30.0, -89.9, -150.0),
        (-90.0, 0.0, 90.0, 0.0),
        (10.0, 20.0, 10.0, 20.0000001),
        (48.0, 11.0, 48.00001, 11.00001),
        (0.0, -179.9, 0.0, 179.9),
    ]
    for p in fixed:
        result.append(p)
    for _ in range(200):
        result.append((rng.uniform(-90, 90), rng.uniform(-180, 180),
                       rng.uniform(-90, 90), rng.uniform(-180, 180)))
    for _ in range(50):  # near-antipodal
        lat, lon = rng.uniform(-60, 60), rng.uniform(-180, 180)
        result.append((lat, lon, -lat + rng.uniform(-0.5, 0.5),
                       (lon + 180 + rng.uniform(-0.5, 0.5) + 180) % 360 - 180))
    return [[a, b, c, d, Geodesic.WGS84.Inverse(a, b, c, d)["s12"]] for a, b, c, d in result]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    gpx_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "shared", "data", "gpx")
    files = {}
    for name in sorted(os.listdir(gpx_dir)):
        if name.endswith(".gpx"):
            files[name] = routes_of(os.path.join(gpx_dir, name))
    import geographiclib
    out = {"generator": "tools/geodesic_reference.py with geographiclib " + geographiclib.__version__,
           "files": files, "pairs": pairs()}
    json.dump(out, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()

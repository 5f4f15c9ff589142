#!/usr/bin/env python3
"""Writes Tests/Fixtures/legacy-archive.plist: a binary NSKeyedArchiver archive laid out
the way Apple's Foundation writes one, with the old app's route objects and
CoreLocation's CLLocation coding keys. Only Python's standard library (plistlib) is
used, so it runs anywhere; the points are synthetic (no recorded data).

Usage: python3 tools/make_legacy_archive.py [OUTPUT]

What the archive holds (the migration tests rely on it):
  route 1: 300 locations at 1 s, walking north-east from Zurich (about 420 m),
           one of them invalid (horizontal accuracy -1, coordinate -180/-180);
           totalDistance 1234.5 m, calories 87, no splits (empty arrays).
  route 2: 1,500 locations at 2 s along a meridian in Lisbon (about 2.5 km), with
           km splits (kmCoordinates + kmTimes) and mile splits, totalDistance as an
           integer NSNumber, calories as a string, time taken "00:50:00".
  route 3: no locations at all (skipped).
  route 4: route 1 archived again (same start, same count: migrated once).
Timestamps are CFAbsoluteTime doubles (seconds since 2001-01-01), as CLLocation
archives them; dates (kmTimes, date) are NSDate objects with NS.time.
"""
import math
import os
import plistlib
import sys
from plistlib import UID

objects = ["$null"]
class_uids = {}


def add(obj):
    objects.append(obj)
    return UID(len(objects) - 1)


def klass(name, supers):
    if name not in class_uids:
        class_uids[name] = add({"$classname": name, "$classes": [name] + supers})
    return class_uids[name]


def nsdate(seconds_since_2001):
    return add({"$class": klass("NSDate", ["NSObject"]), "NS.time": float(seconds_since_2001)})


def array(uids):
    return add({"$class": klass("NSMutableArray", ["NSArray", "NSObject"]), "NS.objects": list(uids)})


def location(lat, lon, t, alt=420.0, hacc=5.0, vacc=3.0, speed=1.4, course=45.0):
    return add({
        "$class": klass("CLLocation", ["NSObject"]),
        "kCLLocationCodingKeyCoordinateLatitude": float(lat),
        "kCLLocationCodingKeyCoordinateLongitude": float(lon),
        "kCLLocationCodingKeyAltitude": float(alt),
        "kCLLocationCodingKeyHorizontalAccuracy": float(hacc),
        "kCLLocationCodingKeyVerticalAccuracy": float(vacc),
        "kCLLocationCodingKeyTimestamp": float(t),
        "kCLLocationCodingKeySpeed": float(speed),
        "kCLLocationCodingKeyCourse": float(course),
        "kCLLocationCodingKeyLifespan": -1.0,
        "kCLLocationCodingKeyType": 1,
    })


def route(coords, miles=(), kms=(), distance=None, calories=None, taken="00:05:00", date=0.0):
    obj = {
        "$class": klass("Route", ["NSObject"]),
        "routeCoordinates": array(coords),
        "mileCoordinates": array([m[0] for m in miles]),
        "mileTimes": array([m[1] for m in miles]),
        "kmCoordinates": array([k[0] for k in kms]),
        "kmTimes": array([k[1] for k in kms]),
        "timeTaken": add(taken),
        "date": nsdate(date),
    }
    if distance is not None:
        obj["totalDistance"] = add(distance)
    if calories is not None:
        obj["calories"] = add(calories)
    return obj


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Fixtures", "legacy-archive.plist")
    # 2015-06-01T07:00:00Z in seconds since 2001-01-01.
    start1 = 454834800.0
    coords1 = []
    for i in range(300):
        if i == 150:
            coords1.append(location(-180, -180, start1 + i, hacc=-1.0))
        else:
            coords1.append(location(47.3769 + i * 1e-5, 8.5417 + i * 1e-5, start1 + i))
    route1 = route(coords1, distance=1234.5, calories=87.0, date=start1)

    start2 = start1 + 86400 * 3 + 0.25
    coords2, kms, miles = [], [], []
    step = 2.5 / 1500 / 111.2  # degrees of latitude for about 2.5 km over 1,500 points
    walked, next_km, next_mile = 0.0, 1000.0, 1609.344
    for i in range(1500):
        t = start2 + 2 * i
        uid = location(38.7223 + i * step, -9.1393, t, course=0.0)
        coords2.append(uid)
        if i:
            walked += step * 111_132.0
        if walked >= next_km:
            kms.append((uid, nsdate(t)))
            next_km += 1000.0
        if walked >= next_mile:
            miles.append((uid, nsdate(t)))
            next_mile += 1609.344
    route2 = route(coords2, miles=miles, kms=kms, distance=2500, calories="143.5", taken="00:50:00", date=start2)

    routes = [add(route1), add(route2), add(route([], date=start1)), add(route1)]
    root = array(routes)
    archive = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {"root": root}, "$objects": objects}
    with open(out, "wb") as f:
        plistlib.dump(archive, f, fmt=plistlib.FMT_BINARY, sort_keys=False)
    print(f"wrote {out}: {len(objects)} objects, {len(kms)} km and {len(miles)} mile splits in route 2")


if __name__ == "__main__":
    main()

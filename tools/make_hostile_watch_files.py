#!/usr/bin/env python3
"""Writes hostile FIT and TCX files for measuring `routelog import` by hand (README,
"Importing FIT and TCX"): they are far too large to commit or to build in a test.

    python3 tools/make_hostile_watch_files.py OUTDIR

OUTDIR/claims-4gb.fit        a 47-byte FIT file whose header claims 4 GB of records
OUTDIR/records-1.2m.fit      1,200,000 positioned records (18 MB): past the limit
OUTDIR/records-900k.fit      900,000 positioned records (13.5 MB): under the limit, imported
OUTDIR/name-1gb.tcx          a course whose <Name> is 1 GB long
OUTDIR/notes-1gb.tcx         an activity whose <Notes> (not read) is 1 GB long

The FIT files are written from the protocol description (header, one definition,
records, the CRC-16 of the protocol), streamed so this script needs little memory.
"""
import os
import struct
import sys

TABLE = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
         0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]


def crc16(data, crc=0):
    for byte in data:
        entry = TABLE[crc & 0xF]
        crc = ((crc >> 4) & 0x0FFF) ^ entry ^ TABLE[byte & 0xF]
        entry = TABLE[crc & 0xF]
        crc = ((crc >> 4) & 0x0FFF) ^ entry ^ TABLE[byte >> 4]
    return crc


def header(data_size):
    head = bytes([14, 0x20]) + struct.pack('<HI', 2194, data_size) + b'.FIT'
    return head + struct.pack('<H', crc16(head))


# Record definition, local type 0: timestamp, position_lat, position_long, altitude.
DEFINITION = bytes([0x40, 0, 0]) + struct.pack('<HB', 20, 4) + bytes([253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85, 2, 2, 0x84])
RECORD_SIZE = 1 + 4 + 4 + 4 + 2


def records_file(path, count):
    with open(path, 'wb') as out:
        head = header(len(DEFINITION) + count * RECORD_SIZE)
        crc = crc16(head + DEFINITION)
        out.write(head + DEFINITION)
        batch = bytearray()
        for i in range(count):
            lat = int((47.0 + (i % 100_000) * 1e-5) * 2**31 / 180)
            lon = int((8.0 + (i // 100_000) * 1e-3) * 2**31 / 180)
            batch += bytes([0]) + struct.pack('<IiiH', 1_000_000_000 + i, lat, lon, 2600)
            if len(batch) > 1 << 20:
                crc = crc16(batch, crc)
                out.write(batch)
                batch = bytearray()
        crc = crc16(batch, crc)
        out.write(batch + struct.pack('<H', crc))


def huge_text_tcx(path, element, activity):
    opening = ('<?xml version="1.0" encoding="UTF-8"?>\n<TrainingCenterDatabase '
               'xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">\n')
    opening += ('<Activities><Activity Sport="Running"><Id>2024-05-01T08:00:00Z</Id>' if activity
                else '<Courses><Course>') + f'<{element}>'
    closing = (f'</{element}><Lap><Track><Trackpoint><Time>2024-05-01T08:00:00Z</Time><Position>'
               '<LatitudeDegrees>47.3</LatitudeDegrees><LongitudeDegrees>8.5</LongitudeDegrees></Position>'
               '</Trackpoint></Track></Lap>') if activity else f'</{element}>'
    closing += ('</Activity></Activities>' if activity else '</Course></Courses>') + '</TrainingCenterDatabase>\n'
    chunk = b'n' * (1 << 20)
    with open(path, 'wb') as out:
        out.write(opening.encode())
        for _ in range(1024):
            out.write(chunk)
        out.write(closing.encode())


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    small = DEFINITION + bytes([0]) + struct.pack('<IiiH', 1_000_000_000, 0, 0, 2600)
    with open(os.path.join(outdir, 'claims-4gb.fit'), 'wb') as out:
        out.write(header(0xFFFF_FFF0) + small)
    records_file(os.path.join(outdir, 'records-1.2m.fit'), 1_200_000)
    records_file(os.path.join(outdir, 'records-900k.fit'), 900_000)
    huge_text_tcx(os.path.join(outdir, 'name-1gb.tcx'), 'Name', activity=False)
    huge_text_tcx(os.path.join(outdir, 'notes-1gb.tcx'), 'Notes', activity=True)


if __name__ == '__main__':
    main()

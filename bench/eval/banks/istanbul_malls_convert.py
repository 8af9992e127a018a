#!/usr/bin/env python3
"""Rebuild customer_shopping_data.csv from the xlsx in hotuyen21pt/Customer_Segmentation
(standard library only).

The workbook has one sheet whose column A holds, in every row, one whole line of the
original Kaggle CSV as a shared string (header in row 1). Each cell's text is written out
unchanged as one line, '\n'-terminated.

    git --git-dir=<mirror> show 86afed11682d2f63d6f9340338c9a1b7ab9c05c9:customer_shopping_data.xlsx > cs.xlsx
    python istanbul_malls_convert.py cs.xlsx customer_shopping_data.csv
"""
import sys
import zipfile
import xml.etree.ElementTree as ET

NS = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"


def main(src, dst):
    z = zipfile.ZipFile(src)
    ss = ET.fromstring(z.read("xl/sharedStrings.xml"))
    strs = ["".join(t.text or "" for t in si.iter(NS + "t")) for si in ss.findall(NS + "si")]
    sheet = ET.fromstring(z.read("xl/worksheets/sheet1.xml"))
    lines = []
    for row in sheet.iter(NS + "row"):
        cells = list(row.iter(NS + "c"))
        assert len(cells) == 1 and cells[0].get("t") == "s", row.get("r")
        lines.append(strs[int(cells[0].find(NS + "v").text)])
    assert all(l.count(",") == 9 for l in lines)
    with open(dst, "w", encoding="utf-8", newline="") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(lines)} lines -> {dst}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

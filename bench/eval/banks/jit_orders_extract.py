"""Extract the jit_orders data file from its source zip, byte for byte.

The source is `data.zip` in the public GitHub repository hoshigan/Supply-Chain-Analytic---Just-In-Time-Company
(git blob 362247b9d567189c85ebe80a2de43ab96b75d699, added in commit 71604e8b0325e09dd6a13ec1870ae8d063aae026,
unchanged at 80cbf0f1ed7ffac94735e2148a35d1dee12bb41f). Its member `data/orders_and_shipments.csv` is written out
unchanged (no re-encoding, no line-end or value change), and its sha256 is checked.

    git --git-dir=<mirror> show 80cbf0f1ed7ffac94735e2148a35d1dee12bb41f:data.zip > data.zip
    python jit_orders_extract.py data.zip /work/evaldata/jit_orders/orders_and_shipments.csv

Stdlib only.
"""
import hashlib
import sys
import zipfile

ZIP_BLOB = "362247b9d567189c85ebe80a2de43ab96b75d699"
MEMBER = "data/orders_and_shipments.csv"
MEMBER_SHA256 = "5d56c059ea3dde1fad01b50608fb3135c66e23b50d931a481d76696c9fd3b8a7"
MEMBER_SIZE = 5443246


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    zpath, out = sys.argv[1], sys.argv[2]
    raw = open(zpath, "rb").read()
    blob = git_blob_id(raw)
    if blob != ZIP_BLOB:
        print(f"zip git blob {blob} != {ZIP_BLOB}")
        return 1
    with zipfile.ZipFile(zpath) as z:
        data = z.read(MEMBER)
    sha = hashlib.sha256(data).hexdigest()
    if len(data) != MEMBER_SIZE or sha != MEMBER_SHA256:
        print(f"member size {len(data)} sha256 {sha}: not the expected file")
        return 1
    with open(out, "wb") as f:
        f.write(data)
    print(f"wrote {out}: {len(data)} bytes, sha256 {sha}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

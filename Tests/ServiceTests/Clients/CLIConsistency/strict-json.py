# Reads a command's --json output on stdin and parses each line as strictly as a careful
# consumer would: a line that is not one JSON object, or an object with a key twice at any depth,
# is an error (exit 1, the reason on stdout). Otherwise prints the objects as one JSON array.
import json
import sys


def strict(pairs):
    seen = set()
    for key, _ in pairs:
        if key in seen:
            raise ValueError("duplicate key %r" % key)
        seen.add(key)
    return dict(pairs)


objects = []
for number, line in enumerate(sys.stdin.read().split("\n"), 1):
    if not line:
        continue
    try:
        value = json.loads(line, object_pairs_hook=strict)
    except ValueError as error:
        print("line %d: %s: %s" % (number, error, line))
        sys.exit(1)
    if not isinstance(value, dict):
        print("line %d: not an object: %s" % (number, line))
        sys.exit(1)
    objects.append(value)
print(json.dumps(objects))

# The caller app's entry runs this: records the URL it is started with (argv[2]) as
# RECORDS/caller.url (written whole, then renamed in place). argv: RECORDS, URL.
import os, sys
records, url = sys.argv[1], sys.argv[2]
open(records + '/caller.url.tmp', 'w').write(url)
os.rename(records + '/caller.url.tmp', records + '/caller.url')

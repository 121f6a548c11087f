# Reads Thunar's uca.xml (argv[2]) as XML: with 'ids' (argv[1]) prints its actions' unique-ids
# (space-separated), with 'command' the first action's command.
import sys, xml.etree.ElementTree as E
actions = E.parse(sys.argv[2]).getroot()
if sys.argv[1] == 'ids':
    print(' '.join(a.find('unique-id').text for a in actions))
else:
    print(actions.find('action/command').text)

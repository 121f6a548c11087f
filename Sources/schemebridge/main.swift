// Placeholder: the command-line client (issue 4).
print("schemebridge: not implemented yet")

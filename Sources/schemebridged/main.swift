print("schemebridged")

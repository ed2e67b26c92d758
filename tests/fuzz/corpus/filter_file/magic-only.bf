‰BLM


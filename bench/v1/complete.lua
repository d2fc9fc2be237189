-- complete. ARGV: id
return complete_item(ARGV[1])

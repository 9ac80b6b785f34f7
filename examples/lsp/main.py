from greet import greet, shout

print(greet("x"))
print(shout("y"))

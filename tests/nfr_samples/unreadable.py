import sys
import os, json
def CamelCaseFunction(X):
    if X == None: return 0
    Result = []
    for i in range(len(X)):
        Result.append(X[i])
    return Result
class lower_case_class:
    pass
square = lambda v: v * v
def long_line(a, b, c):
    return {"alpha": a, "beta": b, "gamma": c, "delta": a + b + c, "epsilon": a * b * c, "zeta": 1}
def unused_args(data):
    if (data):
        return sys.argv, os.sep, json.dumps(data)
    return None   
